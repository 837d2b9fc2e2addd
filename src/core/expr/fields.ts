// Fields of a map element inside a comprehension (an ownerReference, say), read as CEL reads them where the API
// server has decoded the object: the leaves a list predicate reads besides the list itself.
import { cel, celIdentifier } from '../cel/text.js';
import { isRecord, quote } from '../guards.js';
import { leaf, type Bool, type Expr, type Str } from './expr.js';

/**
 * m.<key> is true: has() first, so a map without it is not. Only a map element reaches CEL (ObjectMeta's lists are
 * decoded by the API server); JavaScript reads anything else as false.
 */
export function fieldIsTrue(m: Expr<unknown>, key: string): Bool {
  const k = celIdentifier(key);
  return leaf(cel`has(${m.cel}.${k}) && ${m.cel}.${k} == true`, (env) => {
    const v = m.js(env);
    return isRecord(v) && Object.hasOwn(v, key) && v[key] === true;
  });
}

/**
 * string(m.<key>): the string itself, which is all the API server sends for a typed string field (an
 * ownerReference's kind and name). JavaScript writes anything else as JSON (quote) rather than failing: not
 * String(), which an object with its own "toString" key makes throw.
 */
export function fieldText(m: Expr<unknown>, key: string): Str {
  return leaf(cel`string(${m.cel}.${celIdentifier(key)})`, (env) => {
    const v = m.js(env);
    const field = isRecord(v) && Object.hasOwn(v, key) ? v[key] : undefined;
    return typeof field === 'string' ? field : quote(field);
  });
}

/** m is a map (an object in JavaScript): what a list's elements are checked for before their fields are read. */
export function isMap(m: Expr<unknown>): Bool {
  return leaf(cel`type(${m.cel}) == map`, (env) => isRecord(m.js(env)));
}

/** m.<key> is there and a string (read on a map: isMap first). */
export function fieldIsString(m: Expr<unknown>, key: string): Bool {
  const k = celIdentifier(key);
  return leaf(cel`(has(${m.cel}.${k}) && type(${m.cel}.${k}) == string)`, (env) => {
    const v = m.js(env);
    return isRecord(v) && Object.hasOwn(v, key) && typeof v[key] === 'string';
  });
}

/** m.<key> as it is, read once fieldIsString holds (CEL's selection fails on a map without it; JavaScript throws). */
export function stringField(m: Expr<unknown>, key: string): Str {
  return leaf(cel`${m.cel}.${celIdentifier(key)}`, (env) => {
    const v = m.js(env);
    if (!isRecord(v) || !Object.hasOwn(v, key)) throw new RangeError(`no such key: ${key}`);
    return v[key] as string;
  });
}
