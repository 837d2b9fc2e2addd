// The cluster seam the audit depends on: a lister of objects page by page. The real one (lister.ts) wraps
// @kubernetes/client-node; tests and the end-to-end suite pass their own.
import type { KubeObject } from '../../core/types.js';
import type { ResourceRef } from '../../core/resources.js';
import { AppError } from '../../errors.js';

export interface Lister {
  /**
   * Every object of a resource, one page at a time (the API server's limit/continue), in one namespace or all.
   * Throws CrdNotInstalled when the API server does not serve the resource, AppError CLUSTER on other failures.
   */
  list(resource: ResourceRef, namespace?: string): AsyncIterable<KubeObject[]>;
}

export function resourceName(r: ResourceRef): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

/** The API path of a resource's collection, in one namespace or (namespace undefined) all of them. */
export function resourcePath(r: ResourceRef, namespace?: string): string {
  // The core group lives under /api, every other group under /apis.
  const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns = namespace !== undefined && r.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${r.plural}`;
}

/** The API server answered 404 for a resource's list: its CRD is not installed (or not this version). */
export class CrdNotInstalled extends AppError {
  constructor(
    readonly resource: ResourceRef,
    options: { cause?: unknown } = {},
  ) {
    super('CLUSTER', `${resourceName(resource)}/${resource.version} is not served: its CRD is not installed`, options);
  }
}
