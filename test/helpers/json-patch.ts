// RFC 6902 JSON Patch applied for tests: what the API server does with a webhook's patch or a
// MutatingAdmissionPolicy's JSONPatch, written from the RFC (not from src/core/patch.ts, which only makes patches), so a
// wrong patch shows as a wrong object. Every operation; a path that does not resolve, or a failed test, throws, unless
// `lenient` (a fixture's diff replayed onto what the API server stored): then removing or replacing a last key that
// is not there removes nothing or adds it.
import { isDeepStrictEqual } from 'node:util';
import { unescapePointerToken } from '../../src/core/pointer.js';

export interface Operation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

type Container = Record<string, unknown> | unknown[];

/** RFC 6901: "" is the whole document, else "/"-separated tokens. */
function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`JSON Pointer ${JSON.stringify(pointer)} does not start with "/"`);
  return pointer.slice(1).split('/').map(unescapePointerToken);
}

/** An array index token: "0" or digits without a leading zero, below `limit` (inclusive when adding). */
function index(token: string, length: number, adding: boolean, pointer: string): number {
  if (adding && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) > (adding ? length : length - 1))
    throw new Error(`${pointer}: no array index ${token}`);
  return Number(token);
}

/** The container the last token of `pointer` is in, and that token. */
function parentOf(doc: unknown, pointer: string): [Container, string] {
  const keys = tokens(pointer);
  const last = keys.pop();
  if (last === undefined) throw new Error('the root has no parent');
  let at = doc;
  for (const key of keys) {
    if (Array.isArray(at)) at = at[index(key, at.length, false, pointer)];
    else if (typeof at === 'object' && at !== null && Object.hasOwn(at, key)) at = (at as Record<string, unknown>)[key];
    else throw new Error(`${pointer}: ${JSON.stringify(key)} is not there`);
  }
  if (typeof at !== 'object' || at === null) throw new Error(`${pointer}: the parent is not a container`);
  return [at as Container, last];
}

function get(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  const [parent, key] = parentOf(doc, pointer);
  if (Array.isArray(parent)) return parent[index(key, parent.length, false, pointer)];
  if (!Object.hasOwn(parent, key)) throw new Error(`${pointer}: ${JSON.stringify(key)} is not there`);
  return parent[key];
}

function remove(doc: unknown, pointer: string, lenient = false): unknown {
  const [parent, key] = parentOf(doc, pointer);
  if (lenient && !Object.hasOwn(parent, key)) return undefined;
  if (Array.isArray(parent)) return parent.splice(index(key, parent.length, false, pointer), 1)[0];
  if (!Object.hasOwn(parent, key)) throw new Error(`${pointer}: ${JSON.stringify(key)} is not there`);
  const value = parent[key];
  delete parent[key];
  return value;
}

/** Sets `value` at `pointer` (an own key, "__proto__" included, as JSON.parse makes it); returns the new document. */
function add(doc: unknown, pointer: string, value: unknown, replace: boolean): unknown {
  if (pointer === '') return value;
  const [parent, key] = parentOf(doc, pointer);
  if (Array.isArray(parent)) {
    const i = index(key, parent.length, !replace, pointer);
    parent.splice(i, replace ? 1 : 0, value);
  } else {
    if (replace && !Object.hasOwn(parent, key)) throw new Error(`${pointer}: ${JSON.stringify(key)} is not there`);
    Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });
  }
  return doc;
}

/** `doc` with `ops` applied in order, on a copy: the input is left as it was. */
export function applyPatch<T>(doc: T, ops: readonly Operation[], { lenient = false } = {}): T {
  let out: unknown = structuredClone(doc);
  for (const o of ops) {
    const value = structuredClone(o.value);
    switch (o.op) {
      case 'add':
        out = add(out, o.path, value, false);
        break;
      case 'replace':
        out = o.path === '' ? value : add(out, o.path, value, !(lenient && !Object.hasOwn(...parentOf(out, o.path))));
        break;
      case 'remove':
        remove(out, o.path, lenient);
        break;
      case 'move':
      case 'copy': {
        if (o.from === undefined) throw new Error(`${o.op} ${o.path}: no from`);
        if (o.op === 'move' && (o.path + '/').startsWith(o.from + '/') && o.path !== o.from)
          throw new Error(`move ${o.from} into its own child ${o.path}`);
        const moved = o.op === 'move' ? remove(out, o.from) : structuredClone(get(out, o.from));
        out = add(out, o.path, moved, false);
        break;
      }
      case 'test':
        if (!isDeepStrictEqual(get(out, o.path), o.value)) throw new Error(`test ${o.path} failed`);
        break;
      default:
        throw new Error(`unknown JSON Patch operation ${JSON.stringify(o.op)}`);
    }
  }
  return out as T;
}
