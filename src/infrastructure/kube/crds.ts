// GET one CustomResourceDefinition: `audit` checks that the CRDs carrying hooks still keep them in their schemas.
import { withDeadline } from './deadline.js';
import { accessGet, type ClusterAccess } from './api-requests.js';

const CRD_TIMEOUT_MS = 10_000;

/** A CRD as stored, not installed, or why it could not be read. */
export type CrdRead = { crd: unknown } | { absent: true } | { unreadable: string };

export function crdReader(access: ClusterAccess): (name: string) => Promise<CrdRead> {
  const get = accessGet(access);
  return async (name) => {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`;
    try {
      const res = await withDeadline(CRD_TIMEOUT_MS, (signal) => get(path, signal));
      if (res.status === 404) return { absent: true };
      if (res.status === 403) return { unreadable: 'the caller may not get customresourcedefinitions' };
      if (res.status !== 200) return { unreadable: `GET ${path}: HTTP ${res.status}` };
      return { crd: res.body };
    } catch (err) {
      return { unreadable: `GET ${path}: ${err instanceof Error ? err.message : String(err)}` };
    }
  };
}
