// A message both engines say, defined once: parts that are literal text or slots, rendered to the text the TypeScript
// rules print (toJs, from values) and to the CEL string expression the native policies evaluate (toCel, from CEL
// expressions of the same slots). Every word is written once, so the two engines cannot word a problem differently.
import { quote } from '../guards.js';
import { atTopLevel, cel, celJoin, celString, celStringValue, type Cel } from '../cel/text.js';

/** The values a message is filled with: text, counts and conditions. */
export type Slots = Readonly<Record<string, string | number | boolean>>;

/** The same slots as CEL expressions of the slot's type (string, int, bool). */
export type CelSlots<V extends Slots> = { readonly [K in keyof V]: Cel };

export interface Message<V extends Slots> {
  /** The text, as the webhook, the audit and `validate` print it. */
  toJs(values: V): string;
  /** A CEL string expression evaluating to the same text for the same values. */
  toCel(exprs: CelSlots<V>): Cel;
  /** The CEL terms concatenated (what toCel joins), so a message inside another merges with its literals. */
  celTerms(exprs: CelSlots<V>): Cel[];
}

/** A message's part: literal text, a message over the same slots (or fewer), or parts in order. */
export type Part<V extends Slots> = string | Message<V> | ReadonlyArray<Part<V>>;

type KeysOf<V, T> = { [K in keyof V]-?: V[K] extends T ? K : never }[keyof V] & string;

export interface Builder<V extends Slots> {
  /** A text slot, as it is. */
  text(key: KeysOf<V, string>): Message<V>;
  /** A text slot quoted (guards.quote; strings.quote in CEL), as field errors print values. */
  quoted(key: KeysOf<V, string>): Message<V>;
  /** A count, in decimal. */
  int(key: KeysOf<V, number>): Message<V>;
  /** One part or another, by a condition slot. */
  when(key: KeysOf<V, boolean>, yes: Part<V>, no: Part<V>): Message<V>;
}

function partToJs<V extends Slots>(part: Part<V>, values: V): string {
  if (typeof part === 'string') return part;
  if (isMessage(part)) return part.toJs(values);
  return part.map((p) => partToJs(p, values)).join('');
}

function isMessage<V extends Slots>(part: Part<V>): part is Message<V> {
  return typeof part === 'object' && !Array.isArray(part);
}

function partTerms<V extends Slots>(part: Part<V>, exprs: CelSlots<V>): Cel[] {
  if (typeof part === 'string') return [celString(part)];
  if (isMessage(part)) return part.celTerms(exprs);
  return part.flatMap((p) => partTerms(p, exprs));
}

/**
 * A slot's expression as a term of a `+` chain: parenthesized when an operator that binds looser than `+` (or a
 * ternary) is at its top level, so the chain cannot change its meaning.
 */
function concatenable(expr: Cel): Cel {
  const looser = (e: Cel, i: number): boolean => /[?:&|=<>!*/%-]/.test(e[i] as string) || e.startsWith(' in ', i);
  return atTopLevel(expr, looser) ? cel`(${expr})` : expr;
}

/** Terms concatenated: adjacent literals (and slots given as literals) merged, so CEL reads as the text does. */
function concatCel(terms: readonly Cel[]): Cel {
  const out: Cel[] = [];
  let pending: string | undefined;
  for (const t of terms) {
    const literal = celStringValue(t);
    if (literal !== undefined) {
      pending = (pending ?? '') + literal;
      continue;
    }
    if (pending !== undefined && pending !== '') out.push(celString(pending));
    pending = undefined;
    out.push(t);
  }
  if (pending !== undefined && (pending !== '' || out.length === 0)) out.push(celString(pending));
  return out.length === 1 ? (out[0] as Cel) : cel`(${celJoin(out, ' + ')})`;
}

/** Parts in order, one message. */
export function words<V extends Slots>(...parts: ReadonlyArray<Part<V>>): Message<V> {
  return term(
    (values) => partToJs(parts, values),
    (exprs) => partTerms(parts, exprs),
  );
}

function term<V extends Slots>(toJs: (v: V) => string, celTerms: (e: CelSlots<V>) => Cel[]): Message<V> {
  return { toJs, celTerms, toCel: (exprs) => concatCel(celTerms(exprs)) };
}

function builder<V extends Slots>(): Builder<V> {
  return {
    text: (key) =>
      term(
        (v) => String(v[key]),
        (e) => [concatenable(e[key])],
      ),
    quoted: (key) =>
      term(
        (v) => quote(v[key]),
        (e) => {
          const literal = celStringValue(e[key]);
          return [literal === undefined ? cel`strings.quote(${e[key]})` : celString(quote(literal))];
        },
      ),
    int: (key) =>
      term(
        (v) => String(v[key]),
        (e) => [cel`string(${e[key]})`],
      ),
    when: (key, yes, no) =>
      term(
        (v) => partToJs(v[key] === true ? yes : no, v),
        (e) => [cel`(${e[key]} ? ${concatCel(partTerms(yes, e))} : ${concatCel(partTerms(no, e))})`],
      ),
  };
}

/** A message over slots V, its parts written with the builder's slots. */
export function message<V extends Slots>(build: (w: Builder<V>) => Part<V>): Message<V> {
  return words(build(builder<V>()));
}

/** A message with no slots: fixed text. */
export function fixed(text: string): Message<Record<never, never>> {
  return words(text);
}
