// machine-api-operator skips validation for an UPDATE that only removes all finalizers of a deleting Machine,
// so a machine can always finish deleting, whatever state its hooks are in. hookkeeper does the same.
import { isDeleting, isRecord, metadata } from './guards.js';
import type { KubeObject } from './types.js';

const IGNORED_METADATA = ['finalizers', 'resourceVersion', 'managedFields', 'generation'];

function withoutVolatile(obj: KubeObject): unknown {
  const meta = { ...metadata(obj) };
  for (const key of IGNORED_METADATA) delete meta[key];
  const { status: _status, ...rest } = obj;
  return { ...rest, metadata: meta };
}

export function isFinalizerOnlyRemoval(object: KubeObject | null, oldObject: KubeObject | null): boolean {
  if (!object || !oldObject || !isDeleting(object)) return false;
  const finalizers = metadata(object)['finalizers'];
  if (Array.isArray(finalizers) && finalizers.length > 0) return false;
  return deepEqual(withoutVolatile(object), withoutVolatile(oldObject));
}

/**
 * Structural equality of two JSON values. A loop over a list of pairs still to compare, not recursion: the API
 * server stores objects nested 10,000 levels deep (a providerSpec), deeper than a call stack goes.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  const pending: Array<[unknown, unknown]> = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push([x[i], y[i]]);
      continue;
    }
    if (!isRecord(x) || !isRecord(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const k of keys) {
      if (!Object.hasOwn(y, k)) return false;
      pending.push([x[k], y[k]]);
    }
  }
  return true;
}
