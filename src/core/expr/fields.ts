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
