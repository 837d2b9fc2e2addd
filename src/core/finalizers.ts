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

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
