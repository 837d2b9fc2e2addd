// Paths in policy messages as the user wrote them (owners["team/storage"].serviceAccounts), not as JSON Pointers.
import { toKeys } from './yaml.js';

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A JSON Pointer ("/owners/team~1storage/users/0") as written in YAML terms: owners["team/storage"].users[0]. */
export function displayPath(pointer: string): string {
  let out = '';
  for (const key of toKeys(pointer)) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (PLAIN_KEY.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}
