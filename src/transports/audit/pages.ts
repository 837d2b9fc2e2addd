// Listing one resource for the audit: its pages through the injected lister, the first asked for at once, and
// each listed object's reference in the report.
import { metadata } from '../../core/guards.js';
import type { KindResource } from '../../core/resources.js';
import type { KubeObject } from '../../core/types.js';
import type { Lister } from '../../infrastructure/kube/types.js';
import type { AuditObjectRef } from './report.js';

/** One resource's pages, the first asked for as soon as the stream is opened. */
export interface PageStream {
  next(): Promise<IteratorResult<KubeObject[]>>;
  /** Ends the lister's work on it: a page asked for in advance is abandoned. */
  close(): void;
}

export function openPages(lister: Lister, resource: KindResource, namespace: string | undefined): PageStream {
  let pages: AsyncIterator<KubeObject[]> | undefined;
  let first: Promise<IteratorResult<KubeObject[]>>;
  try {
    pages = lister.list(resource, namespace)[Symbol.asyncIterator]();
    first = pages.next();
  } catch (err) {
    first = Promise.reject(err);
  }
  // Awaited in its turn; failing before then is not an unhandled rejection.
  first.catch(() => undefined);
  let opened = false;
  return {
    next() {
      if (opened && pages) return pages.next();
      opened = true;
      return first;
    },
    close() {
      void pages?.return?.()?.catch(() => undefined);
    },
  };
}

export function refOf(obj: KubeObject, r: KindResource): AuditObjectRef {
  const meta = metadata(obj);
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const namespace = str(meta['namespace']);
  const uid = str(meta['uid']);
  return {
    apiVersion: str(obj['apiVersion']) ?? `${r.group}/${r.version}`,
    kind: r.kind,
    ...(namespace ? { namespace } : {}),
    name: str(meta['name']) ?? '',
    ...(uid ? { uid } : {}),
  };
}
