// A rule's predicate written once: every builder here returns an expression that is both CEL text, for the native
// policies, and a JavaScript function, for the webhook, the audit and `validate`, as messages/ does for words. A
// rule built from these cannot decide one way in one engine and another way in the other; test/core/expr.test.ts
// holds each builder's two compilations together under the CEL evaluator, and the differential fuzzer the rules.
// Closures, not an interpreter: a compiled predicate costs about what the hand-written TypeScript did (BENCHMARKS.md).
import { atTopLevel, cel, celIdentifier, celJoin, celString, celStringSet, type Cel } from '../cel/text.js';
import { quote } from '../guards.js';
import type { Message, Slots } from '../messages/message.js';

/**
 * What a compiled expression reads in the webhook: the request and the rule's context, opaque here (hooks.ts gives
 * its shape); `memo` keeps a variable's value for the rest of one evaluation, as the API server keeps one (made by
 * the first variable read).
 */
export interface Env {
  memo: Map<string, unknown> | undefined;
}

/** One expression, two compilations: the same value for the same request, in CEL and in JavaScript. */
export interface Expr<T> {
  readonly cel: Cel;
  readonly js: (env: Env) => T;
}

export type Bool = Expr<boolean>;
export type Str = Expr<string>;
export type Int = Expr<number>;

/** An expression whose CEL and JavaScript are given apart: for leaves only (hooks.ts), never for logic. */
export function leaf<T>(text: Cel, js: (env: Env) => T): Expr<T> {
  return { cel: text, js };
}

export function str(value: string): Str {
  return { cel: celString(value), js: () => value };
}

export function int(value: number): Int {
  return { cel: cel`${value}`, js: () => value };
}

export const TRUE: Bool = { cel: cel`true`, js: () => true };
export const FALSE: Bool = { cel: cel`false`, js: () => false };

/**
 * Short-circuiting, as CEL's && (which also absorbs an error on its other side). A TRUE term is left out (a leaf a
 * compilation knows to hold there, ownership's among them), as a FALSE one is from `or`: x && true is x, errors too;
 * a FALSE term makes the whole FALSE, as a TRUE one does `or`: false && x is false, an error in x too.
 */
export function and(...terms: readonly Bool[]): Bool {
  if (terms.includes(FALSE)) return FALSE;
  if (terms.includes(TRUE)) terms = terms.filter((t) => t !== TRUE);
  if (terms.length === 0) return TRUE;
  if (terms.length === 1) return terms[0] as Bool;
  // The terms' functions read once: the expressions are of many shapes, their functions one.
  const fns = terms.map((t) => t.js);
  return {
    cel: cel`(${celJoin(
      terms.map((t) => t.cel),
      ' && ',
    )})`,
    js: (env) => {
      for (let k = 0; k < fns.length; k++) if (!(fns[k] as Bool['js'])(env)) return false;
      return true;
    },
  };
}

export function or(...terms: readonly Bool[]): Bool {
  if (terms.includes(TRUE)) return TRUE;
  if (terms.includes(FALSE)) terms = terms.filter((t) => t !== FALSE);
  if (terms.length === 0) return FALSE;
  if (terms.length === 1) return terms[0] as Bool;
  const fns = terms.map((t) => t.js);
  return {
    cel: cel`(${celJoin(
      terms.map((t) => t.cel),
      ' || ',
    )})`,
    js: (env) => {
      for (let k = 0; k < fns.length; k++) if ((fns[k] as Bool['js'])(env)) return true;
      return false;
    },
  };
}

/** Negation; a constant folds, exact in CEL as and/or's folding is. */
export function not(term: Bool): Bool {
  if (term === TRUE) return FALSE;
  if (term === FALSE) return TRUE;
  return { cel: cel`!${operand(term.cel)}`, js: (env) => !term.js(env) };
}

/** A term `!` applies to whole: parenthesized when it has a top-level space (`a == b`, `x in y` bind looser). */
function operand(expr: Cel): Cel {
  return atTopLevel(expr, (e, i) => e[i] === ' ') ? cel`(${expr})` : expr;
}

export function eq<T extends string | number | boolean>(a: Expr<T>, b: Expr<T>): Bool {
  return { cel: cel`${a.cel} == ${b.cel}`, js: (env) => a.js(env) === b.js(env) };
}

export function le(a: Int, b: Int): Bool {
  return { cel: cel`${a.cel} <= ${b.cel}`, js: (env) => a.js(env) <= b.js(env) };
}

export function gt(a: Int, b: Int): Bool {
  return { cel: cel`${a.cel} > ${b.cel}`, js: (env) => a.js(env) > b.js(env) };
}

/** CEL's int `-`. */
export function minus(a: Int, b: Int): Int {
  return { cel: cel`(${a.cel} - ${b.cel})`, js: (env) => a.js(env) - b.js(env) };
}

export function ge(a: Int, b: Int): Bool {
  return { cel: cel`${a.cel} >= ${b.cel}`, js: (env) => a.js(env) >= b.js(env) };
}

export function cond<T>(test: Bool, yes: Expr<T>, no: Expr<T>): Expr<T> {
  return { cel: cel`(${test.cel} ? ${yes.cel} : ${no.cel})`, js: (env) => (test.js(env) ? yes.js(env) : no.js(env)) };
}

/**
 * The string is one of these (CEL's `in` of a map literal, a set). Parenthesized: CEL's `!` binds tighter than
 * `in`, so not() of it must not read `!s in {...}`.
 */
export function oneOf(s: Str, values: readonly string[]): Bool {
  const set = new Set(values);
  return { cel: cel`(${s.cel} in ${celStringSet(set)})`, js: (env) => set.has(s.js(env)) };
}

/** CEL's `+` on strings. */
export function concat(...parts: readonly Str[]): Str {
  return {
    cel: celJoin(
      parts.map((p) => p.cel),
      ' + ',
    ),
    js: (env) => {
      let out = '';
      for (const p of parts) out += p.js(env);
      return out;
    },
  };
}

/**
 * A pure function of one string, remembering its last answer: a comprehension reads the same hook's field in several
 * terms (its size against two bounds, a key's parts in each constraint), and compares by identity first.
 */
function lastOf<T>(f: (s: string) => T): (s: string) => T {
  let last: string | undefined;
  let answer: T;
  return (s) => {
    if (s !== last) {
      answer = f(s);
      last = s;
    }
    return answer;
  };
}

/** A string's size as CEL counts it: in code points, not UTF-16 units. */
export function size(s: Str): Int {
  const count = lastOf(codePoints);
  return { cel: cel`size(${s.cel})`, js: (env) => count(s.js(env)) };
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    n++;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
  }
  return n;
}

export function contains(s: Str, part: string): Bool {
  return { cel: cel`${s.cel}.contains(${celString(part)})`, js: (env) => s.js(env).includes(part) };
}

export function startsWith(s: Str, prefix: string): Bool {
  return { cel: cel`${s.cel}.startsWith(${celString(prefix)})`, js: (env) => s.js(env).startsWith(prefix) };
}

/**
 * RE2's partial match, as CEL's matches(); the pattern is hookkeeper's own, written in the syntax both read (checked
 * by compiling it here).
 */
export function matches(s: Str, pattern: string): Bool {
  const re = new RegExp(pattern, 'u');
  return { cel: cel`${s.cel}.matches(${celString(pattern)})`, js: (env) => re.test(s.js(env)) };
}

/** Kubernetes' CEL strings library: lower-cases A-Z only. */
export function lowerAscii(s: Str): Str {
  return { cel: cel`${s.cel}.lowerAscii()`, js: (env) => s.js(env).replace(/[A-Z]+/g, (m) => m.toLowerCase()) };
}

/**
 * A key lowered as apimachinery lowers an annotation key before judging it (Go's strings.ToLower), for what the
 * judgement can tell: A-Z, and the two letters Go lowers to ASCII, U+0130 (to i) and U+212A KELVIN SIGN (to k). Any
 * other letter stays as it is, and fails the qualified-name pattern as its lowered form would.
 */
export function lowerKey(s: Str): Str {
  const lower = lastOf((text) =>
    UPPER.test(text) ? text.replace(UPPERS, (c) => GO_LOWER[c] ?? c.toLowerCase()) : text,
  );
  return {
    cel: cel`${s.cel}.lowerAscii().replace("\\u0130", "i").replace("\\u212a", "k")`,
    js: (env) => lower(s.js(env)),
  };
}
const UPPER = /[A-Z\u0130\u212a]/;
const UPPERS = /[A-Z\u0130\u212a]/g;
const GO_LOWER: Readonly<Record<string, string>> = { '\u0130': 'i', '\u212a': 'k' };

/** A string's size in UTF-8 bytes, as CEL's size(bytes(s)) and Go's len() count (what apimachinery limits). */
export function byteSize(s: Str): Int {
  const count = lastOf(utf8Length);
  return { cel: cel`size(bytes(${s.cel}))`, js: (env) => count(s.js(env)) };
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3; // a lone surrogate is encoded as U+FFFD, as Go and TextEncoder do
  }
  return n;
}

export { lastOf };

/**
 * `e`, computed once for each value `x` takes in JavaScript (a comprehension's element: a hook), for a term several
 * terms read; `e` must read nothing but `x` and constants. CEL has no such sharing: its text is e's.
 */
export function keptFor<T>(x: Expr<unknown>, e: Expr<T>): Expr<T> {
  let last: unknown = keptFor;
  let value: T;
  return {
    cel: e.cel,
    js: (env) => {
      const v = x.js(env);
      if (v !== last) {
        value = e.js(env);
        last = v;
      }
      return value;
    },
  };
}

/** A message filled with expressions: its CEL from toCel, its text from toJs; the words are the message's. */
export function say<V extends Slots>(message: Message<V>, slots: { readonly [K in keyof V]: Expr<V[K]> }): Str {
  const keys = Object.keys(slots) as (keyof V & string)[];
  const celSlots = Object.fromEntries(keys.map((k) => [k, slots[k].cel])) as { [K in keyof V]: Cel };
  return {
    cel: message.toCel(celSlots),
    js: (env) => {
      const values: Record<string, unknown> = {};
      for (const k of keys) values[k] = slots[k].js(env);
      return message.toJs(values as V);
    },
  };
}

/** A variable of the policy: declared once, read as variables.<name>, evaluated at most once per request. */
export interface Variable<T> extends Expr<T> {
  readonly declaration: { name: string; expression: Cel };
  /** Its value, not kept: for a caller that reads it once. */
  readonly value: Expr<T>;
}

export function variable<T>(name: string, value: Expr<T>): Variable<T> {
  const id = celIdentifier(name);
  return {
    cel: cel`variables.${id}`,
    declaration: { name, expression: value.cel },
    value,
    js: (env) => {
      const memo = (env.memo ??= new Map());
      if (memo.has(name)) return memo.get(name) as T;
      const v = value.js(env);
      memo.set(name, v);
      return v;
    },
  };
}

/**
 * A variable whose value the policy fixes (a literal): declared once and read as variables.<name> in CEL, where the
 * API server evaluates it once per request; in JavaScript the value itself, with nothing to keep.
 */
export function constant<T>(name: string, value: Expr<T>): Variable<T> {
  return {
    cel: cel`variables.${celIdentifier(name)}`,
    declaration: { name, expression: value.cel },
    value,
    js: value.js,
  };
}

/**
 * A comprehension's variable: its CEL is its name; in JavaScript the comprehension sets it before each evaluation
 * of the body (evaluation is synchronous, and each comprehension has its own).
 */
export interface Bound<T> extends Expr<T> {
  readonly set: (value: T) => void;
}

export function bound<T>(name: string): Bound<T> {
  let value: T;
  return { cel: celIdentifier(name), js: () => value, set: (v) => (value = v) };
}

/** For quoting a value in a JavaScript-only text (a fix, a key) exactly as messages quote it. */
export { quote };
