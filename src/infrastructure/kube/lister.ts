// The real Lister: plain list GETs page by page (limit/continue), so the audit's memory stays flat in the number
// of objects: it holds the page it evaluates and, at most, the next one, which is asked for before the caller
// starts on the current one so the API server prepares it meanwhile.
// https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks
import { isRecord } from '../../core/guards.js';
import type { KubeObject } from '../../core/types.js';
import { AppError } from '../../errors.js';
import { withDeadline } from './deadline.js';
import { clusterError, responseError, type Attempt } from './errors.js';
import { pooledGet, type ClusterAccess } from './api-requests.js';
import type { ResourceRef } from '../../core/resources.js';
import { resourceName, resourcePath, type Lister } from './types.js';

/** Page size: what kubectl uses for chunked lists. */
export const PAGE_SIZE = 500;

/**
 * A page that has not come in this long will not be continued anyway (the continue token's snapshot is
 * compacted away every five minutes or so), and a hung connection must not stall `serve`'s background audit.
 */
export const PAGE_TIMEOUT_MS = 120_000;

export interface ListerOptions {
  pageSize?: number;
  pageTimeoutMs?: number;
}

interface Page {
  items: KubeObject[];
  next: string | undefined;
}

export function listPath(
  resource: ResourceRef,
  namespace: string | undefined,
  limit: number,
  token: string | undefined,
): string {
  const query = new URLSearchParams({ limit: String(limit), ...(token !== undefined ? { continue: token } : {}) });
  return `${resourcePath(resource, namespace)}?${query.toString()}`;
}

function continueOf(body: unknown): string | undefined {
  const meta = isRecord(body) && isRecord(body['metadata']) ? body['metadata'] : {};
  return typeof meta['continue'] === 'string' && meta['continue'] !== '' ? meta['continue'] : undefined;
}

/** A lister for the cluster that connect.ts's connect() found. */
export function createLister(access: ClusterAccess, options: ListerOptions = {}): Lister {
  const limit = options.pageSize ?? PAGE_SIZE;
  const timeoutMs = options.pageTimeoutMs ?? PAGE_TIMEOUT_MS;
  const { server } = access;
  return {
    async *list(resource: ResourceRef, namespace?: string): AsyncIterable<KubeObject[]> {
      const at: Attempt = {
        server,
        action: `list ${resourceName(resource)}${namespace ? ` in namespace ${namespace}` : ''}`,
        resource,
      };
      // One list, one set of kept-alive connections: a later list picks up rotated certificates.
      const transport = pooledGet(access);
      // Abandons the page asked for in advance when the caller stops early (an error, a break).
      const done = new AbortController();

      const fetchPage = async (token: string | undefined, afterExpiry = false): Promise<Page> => {
        const path = listPath(resource, namespace, limit, token);
        let res;
        try {
          res = await withDeadline(timeoutMs, (signal) => transport.get(path, signal), done.signal);
        } catch (err) {
          throw clusterError(err, at);
        }
        // The continue token outlived its snapshot (410 Expired). The Status carries a token that continues after the
        // last key seen, from the current state: each object is still seen once, which is all an audit needs.
        if (res.status === 410 && token !== undefined && !afterExpiry) {
          const fresh = continueOf(res.body);
          if (fresh !== undefined) return fetchPage(fresh, true);
        }
        if (res.status !== 200) throw responseError(res, at);
        if (!isRecord(res.body) || !Array.isArray(res.body['items'])) {
          throw new AppError(
            'CLUSTER',
            `cannot ${at.action}: the API server at ${server} answered 200 with something other than a list`,
          );
        }
        return { items: res.body['items'].filter(isRecord), next: continueOf(res.body) };
      };

      try {
        let pending: Promise<Page> | undefined = fetchPage(undefined);
        while (pending) {
          const page: Page = await pending;
          pending = page.next === undefined ? undefined : fetchPage(page.next);
          // Awaited on the next turn; until then a failure must not count as unhandled.
          pending?.catch(() => undefined);
          yield page.items;
        }
      } finally {
        done.abort();
        transport.close();
      }
    },
  };
}
