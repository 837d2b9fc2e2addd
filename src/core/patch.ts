// Mutation by diff: rules change a copy, and the JSON Patch is whatever differs from the original.
import jsonpatch from 'fast-json-patch';
import type { KubeObject, PatchOperation } from './types.js';

/**
 * A deep copy of a JSON value for rules to change. About six times faster than structuredClone on a full
 * Machine (BENCHMARKS.md, engine figure), which made the copy cost more than parsing the request. A "__proto__"
 * key (JSON.parse makes it an own key) is copied as an own key, never as the prototype. Values JSON cannot
 * hold (a Date from a YAML or client library) are shared, not copied: rules only replace them.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    // A loop, not map(): one stack frame per level, so nesting as deep as structuredClone takes still copies.
    const items: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) items[i] = cloneJson(value[i] as unknown);
    return items as T;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, cloneJson((value as Record<string, unknown>)[key]));
  return out as T;
}

/**
 * A copy of `obj` for rules that write only at `writes` (key paths such as ["metadata", "finalizers"]): the
 * value at each path is a deep copy, the objects on the way to it are shallow copies, and everything else is
 * shared with the original. Both the copy and the diff then cost in proportion to what rules may change, not
 * to the object (a stored Machine's managedFields and providerSpec are most of it; diff skips shared subtrees
 * at once). A rule writing anywhere else would change the original: tests run every mutation on a deeply
 * frozen input, where such a write throws.
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
          const deep = cloneJson(child);
          setOwn(parent, key, deep);
          copied.push(deep);
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
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

export function diff(original: KubeObject, mutated: KubeObject): PatchOperation[] {
  return jsonpatch.compare(original, mutated) as PatchOperation[];
}

/** RFC 6901 escaping of one reference token ("~" -> "~0", "/" -> "~1"), e.g. for annotation keys. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
