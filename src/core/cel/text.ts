// CEL source as a type of its own, and its building blocks: literals from policy data (compiled into expressions
// rather than read from a params object: the policy is static per render, and literals need no ConfigMap, paramRef
// or RBAC to read it). A plain string never becomes CEL but through celString (quoted) or the cel`` tag (whose
// literal parts are source written here, and whose values must be CEL or integers).
import { escapePointerToken } from '../pointer.js';

declare const CEL_SOURCE: unique symbol;

/** CEL source text. Only the builders of src/core/cel make it, so a policy string cannot reach an expression unquoted. */
export type Cel = string & { readonly [CEL_SOURCE]: true };

/**
 * CEL source from a template: the template's own text is CEL, each value CEL or an integer (an int literal). A plain
 * string value does not compile: quote it with celString.
 */
export function cel(template: TemplateStringsArray, ...values: ReadonlyArray<Cel | number>): Cel {
  let out = template[0] ?? '';
  values.forEach((v, i) => {
    if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new Error(`not a CEL int literal: ${v}`);
    out += `${v}${template[i + 1] ?? ''}`;
  });
  return out as Cel;
}

/** A CEL string literal: the one way a string becomes CEL (JSON's escapes are CEL's: \", \\, \n, \uXXXX). */
export function celString(text: string): Cel {
  return JSON.stringify(text) as Cel;
}

/** The text of a CEL string literal made by celString, or undefined when `expr` is anything else. */
export function celStringValue(expr: Cel): string | undefined {
  if (!/^"(?:[^"\\]|\\.)*"$/s.test(expr)) return undefined;
  return JSON.parse(expr) as string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A CEL identifier (a variable's name, a field selected from a map): checked, so a key never smuggles in source. */
export function celIdentifier(name: string): Cel {
  if (!IDENTIFIER.test(name)) throw new Error(`not a CEL identifier: ${JSON.stringify(name)}`);
  return name as Cel;
}

/** `variables.<name>`: how an expression reads a policy variable. */
export function celVariable(name: string): Cel {
  return cel`variables.${celIdentifier(name)}`;
}

/** The operators expressions are joined with (' : ' chains conditions that each end in `? value`). */
/**
 * Whether `found` holds at some position of `expr` outside string literals and brackets: where an operator binds the
 * whole expression, so a caller knows to parenthesize it before joining it with a tighter one.
 */
export function atTopLevel(expr: Cel, found: (expr: Cel, i: number) => boolean): boolean {
  let depth = 0;
  let quoted: string | undefined;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i] as string;
    if (quoted !== undefined) {
      if (c === '\\') i++;
      else if (c === quoted) quoted = undefined;
    } else if (c === '"' || c === "'") quoted = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (depth === 0 && found(expr, i)) return true;
  }
  return false;
}

export type CelJoiner = ' && ' | ' || ' | ', ' | ' + ' | ' - ' | ' : ';

/** CEL terms joined by an operator (or a list's commas), unparenthesized. */
export function celJoin(terms: readonly Cel[], joiner: CelJoiner): Cel {
  return terms.join(joiner) as Cel;
}

/** A CEL list literal. */
export function celList(items: readonly Cel[]): Cel {
  return cel`[${celJoin(items, ', ')}]`;
}

/** A CEL map literal {'a': true, ...}: a set with O(1) `in`. */
export function celStringSet(values: Iterable<string>): Cel {
  const unique = [...new Set(values)];
  return cel`{${celJoin(
    unique.map((v) => cel`${celString(v)}: true`),
    ', ',
  )}}`;
}

/** A CEL map literal of string to string, first value kept for a repeated key. */
export function celStringMap(entries: Iterable<readonly [string, string]>): Cel {
  const seen = new Map<string, string>();
  for (const [k, v] of entries) if (!seen.has(k)) seen.set(k, v);
  return cel`{${celJoin(
    [...seen].map(([k, v]) => cel`${celString(k)}: ${celString(v)}`),
    ', ',
  )}}`;
}

/** The text with its first letter upper-cased, for CEL variable names built from parts (preDrain -> oldPreDrain). */
export function capitalize(text: string): string {
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
}

/** A JSON pointer (for a JSONPatch path) from object keys: plain text, quoted with celString where CEL needs it. */
export function pointer(keys: readonly string[]): string {
  return keys.map((k) => `/${escapePointerToken(k)}`).join('');
}

/** `has()` for each step of a key path below `base` (object, oldObject), joined with && and parenthesized. */
export function hasPath(base: Cel, keys: readonly string[]): Cel {
  const steps: Cel[] = [];
  let at = base;
  for (const key of keys) {
    at = cel`${at}.${celIdentifier(key)}`;
    steps.push(cel`has(${at})`);
  }
  return cel`(${celJoin(steps, ' && ')})`;
}

/** A CEL field selection of a key path (keys are identifiers in every carrier's root). */
export function select(base: Cel, keys: readonly string[]): Cel {
  let at = base;
  for (const key of keys) at = cel`${at}.${celIdentifier(key)}`;
  return at;
}

/** Names the request's parts and the user, as every expression reads them. */
export const OBJECT = 'object' as Cel;
export const OLD_OBJECT = 'oldObject' as Cel;
export const USER = 'request.userInfo.username' as Cel;
