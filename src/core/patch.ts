// Mutation by diff: rules change a copy, and the JSON Patch is whatever differs from the original.
import { escapePointerToken } from './pointer.js';
import type { KubeObject, PatchOperation } from './types.js';

/**
 * A deep copy of a JSON value (tests and the engine benchmark copy whole objects with it; the engine itself copies
 * only what rules write, see copyForWrites). A "__proto__" key (JSON.parse makes it an own key) is copied as an
 * own key, never as the prototype. Values JSON cannot hold (a Date from a YAML or client library) are shared.
 * A loop over a list of containers still to fill, not recursion: the API server accepts 10,000 levels of nesting.
 */
export function cloneJson<T>(value: T): T {
  const root = emptyLike(value);
  if (root === value) return value;
  const pending: Array<[unknown, unknown]> = [[value, root]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [from, to] = next;
    if (Array.isArray(from)) {
      for (let i = 0; i < from.length; i++) {
        const item = emptyLike(from[i] as unknown);
        (to as unknown[])[i] = item;
        if (item !== from[i]) pending.push([from[i], item]);
      }
      continue;
    }
    for (const key of Object.keys(from as object)) {
      const source = (from as Record<string, unknown>)[key];
      const item = emptyLike(source);
      setOwn(to as Record<string, unknown>, key, item);
      if (item !== source) pending.push([source, item]);
    }
  }
  return root;
}

/** An empty array or plain object to copy `value` into; `value` itself when it is not copied (primitives, Dates). */
function emptyLike<T>(value: T): T {
  if (Array.isArray(value)) return new Array(value.length) as T;
  return isPlainObject(value) ? ({} as T) : value;
}

/**
 * A copy of `obj` for rules that write only at `writes` (key paths such as ["metadata", "finalizers"]): the
 * value at each path and the objects on the way to it are shallow copies, and everything else, the entries of
 * those values included, is shared with the original. Rules replace, add or remove entries there, never change
 * one in place. The copy and the diff then cost in proportion to what rules change, not to the object (a stored
 * Machine's managedFields and providerSpec are most of it), and go no deeper than the write paths: diff skips
 * shared subtrees at once, so a value nested 10,000 levels deep, which the API server accepts, is never walked
 * (diff recurses only where the copy and the original differ). A rule writing anywhere else would change the original: tests run every
 * mutation on a deeply frozen input, where such a write throws.
 */
export function copyForWrites(obj: KubeObject, writes: ReadonlyArray<readonly string[]>): KubeObject {
  // The copies made so far: a few at most (one per write path step), so a list is cheaper than a Set.
  const copied: object[] = [];
  const root = shallowCopy(obj);
  copied.push(root);
  for (const path of writes) {
    let parent: Record<string, unknown> = root;
    for (let i = 0; i < path.length; i++) {
      const key = path[i] as string;
      const child = parent[key];
      if (i === path.length - 1) {
        if (typeof child === 'object' && child !== null && !copied.includes(child)) {
          const own = Array.isArray(child)
            ? [...(child as unknown[])]
            : isPlainObject(child)
              ? shallowCopy(child)
              : undefined;
          if (own) {
            setOwn(parent, key, own);
            copied.push(own);
          }
        }
        break;
      }
      // A missing or non-object step is replaced, never written into, by the rules (carrier.write).
      if (!isPlainObject(child)) break;
      if (!copied.includes(child)) {
        const next = shallowCopy(child);
        setOwn(parent, key, next);
        copied.push(next);
        parent = next;
      } else {
        parent = child;
      }
    }
  }
  return root;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function shallowCopy(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, value[key]);
  return out;
}

/** Assignment that makes a "__proto__" key an own key, as JSON.parse does, instead of setting the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/**
 * The JSON Patch (RFC 6902) from `original` to `mutated`. Subtrees the two share (copyForWrites shares all but the
 * write paths) are skipped at once, so the walk follows only the paths rules wrote. The operations, their order and
 * their values are what fast-json-patch 3.1's compare gave, which the webhook's patches were until it was dropped: per
 * object, its stored keys from last to first (a nested change, else `replace`, or `remove`), then the keys it gained
 * (`add`); arrays by index, so a shorter list loses its tail from the end.
 */
export function diff(original: KubeObject, mutated: KubeObject): PatchOperation[] {
  const ops: PatchOperation[] = [];
  walk(original, mutated, '', ops);
  return ops;
}

/** Both objects, or both arrays: containers a patch recurses into rather than replaces. */
function sameContainer(pair: [unknown, unknown]): pair is [object, object] {
  const [a, b] = pair;
  return (
    typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b)
  );
}

function walk(before: object, after: object, path: string, ops: PatchOperation[]): void {
  if (before === after) return;
  const was = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const oldKeys = keysOf(before);
  const newKeys = keysOf(after);
  let removed = false;
  for (let i = oldKeys.length - 1; i >= 0; i--) {
    const key = oldKeys[i] as string;
    const at = `${path}/${escapePointerToken(key)}`;
    const oldValue = was[key];
    // A key set to undefined in an object is gone (JSON has no undefined); in an array it is written as null.
    if (Object.hasOwn(now, key) && !(now[key] === undefined && oldValue !== undefined && !Array.isArray(after))) {
      const pair: [unknown, unknown] = [oldValue, now[key]];
      if (sameContainer(pair)) walk(pair[0], pair[1], at, ops);
      else if (pair[0] !== pair[1]) ops.push({ op: 'replace', path: at, value: jsonCopy(pair[1]) });
    } else {
      ops.push({ op: 'remove', path: at });
      removed = true;
    }
  }
  if (!removed && newKeys.length === oldKeys.length) return;
  for (const key of newKeys)
    if (!Object.hasOwn(was, key) && now[key] !== undefined)
      ops.push({ op: 'add', path: `${path}/${escapePointerToken(key)}`, value: jsonCopy(now[key]) });
}

/** An array's indices as strings, or an object's own enumerable keys. */
function keysOf(value: object): string[] {
  return Array.isArray(value) ? Array.from(value, (_, i) => String(i)) : Object.keys(value);
}

/** A value as JSON would carry it (the patch never shares the mutated object's containers). */
function jsonCopy(value: unknown): unknown {
  if (value === undefined) return null;
  return typeof value === 'object' ? (JSON.parse(JSON.stringify(value)) as unknown) : value;
}
