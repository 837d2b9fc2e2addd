// Paths in policy messages as the user wrote them (owners["team/storage"].serviceAccounts), not as JSON Pointers.
import { escapePointerToken } from '../../core/pointer.js';
import type { Problem } from '../../errors.js';
import { toKeys, type YamlDocument } from './yaml.js';

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

/** Where a problem in one YAML document is: its file, the path as written, and the line of `pointer` unless given. */
export type ProblemAt = (pointer: string, message: string, line?: number) => Problem;

/**
 * The problems of one parsed document so far (each key given twice, at its second place) and how to place more: the
 * policy file and `hookkeeper test` files report alike.
 */
export function documentProblems(doc: YamlDocument, file: string): { at: ProblemAt; problems: Problem[] } {
  const at: ProblemAt = (pointer, message, line = doc.lineOf(pointer)) => {
    const shown = displayPath(pointer);
    return { file, ...(shown === '' ? {} : { path: shown }), message, ...(line === undefined ? {} : { line }) };
  };
  const problems = (doc.duplicateKeys ?? []).map((d) => {
    const key = String(d.keys[d.keys.length - 1]);
    const pointer = d.keys.map((k) => `/${escapePointerToken(String(k))}`).join('');
    return at(pointer, `duplicate key ${JSON.stringify(key)} (first at line ${d.firstLine})`, d.line);
  });
  return { at, problems };
}
