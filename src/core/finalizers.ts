// machine-api-operator skips validation for an UPDATE that only removes all finalizers of a deleting Machine, so a
// machine can always finish deleting, whatever state its hooks are in. hookkeeper's rules do the same, but for
// controller-finalizer: while hooks remain, only the Machine's controller may make that update.
import { isDeleting, isRecord, metadata } from './guards.js';
import type { KubeObject } from './types.js';

/**
 * A deleting object losing its last finalizer with its spec and annotations (where hooks live) unchanged: what the
 * webhook's not-finishing-deletion condition leaves out (src/compilers/native/match.ts), so both engines skip the same updates
 * for every rule but those that judge finalizer removals (controller-finalizer).
 */
export function isFinalizerOnlyRemoval(object: KubeObject | null, oldObject: KubeObject | null): boolean {
  if (!object || !oldObject || !isDeleting(object)) return false;
  const finalizers = metadata(object)['finalizers'];
  if (Array.isArray(finalizers) && finalizers.length > 0) return false;
  return (
    deepEqual(object['spec'], oldObject['spec']) &&
    deepEqual(metadata(object)['annotations'], metadata(oldObject)['annotations'])
  );
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
