// The real Lister: CustomObjectsApi list calls page by page (limit/continue), so the audit's memory stays flat
// in the number of objects: it sees one page at a time.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { isRecord } from '../core/guards.js';
import type { KubeObject } from '../core/types.js';
import { serverOf } from './client.js';
import { clusterError } from './errors.js';
import { resourceName, type Lister, type ResourceRef } from './types.js';

/** Page size: what kubectl uses for chunked lists. */
export const PAGE_SIZE = 500;

export function createLister(kc: KubeConfig, options: { pageSize?: number } = {}): Lister {
  const api = kc.makeApiClient(CustomObjectsApi);
  const limit = options.pageSize ?? PAGE_SIZE;
  return {
    async *list(resource: ResourceRef, namespace?: string): AsyncIterable<KubeObject[]> {
      const { group, version, plural } = resource;
      let token: string | undefined;
      do {
        let body: unknown;
        try {
          body = namespace !== undefined && resource.namespaced
            ? await api.listNamespacedCustomObject({ group, version, namespace, plural, limit, ...(token ? { _continue: token } : {}) })
            : await api.listClusterCustomObject({ group, version, plural, limit, ...(token ? { _continue: token } : {}) });
        } catch (err) {
          throw clusterError(err, { server: serverOf(kc), action: `list ${resourceName(resource)}${namespace ? ` in namespace ${namespace}` : ''}`, resource });
        }
        const items = isRecord(body) && Array.isArray(body['items']) ? body['items'].filter(isRecord) : [];
        const meta = isRecord(body) && isRecord(body['metadata']) ? body['metadata'] : {};
        token = typeof meta['continue'] === 'string' && meta['continue'] !== '' ? meta['continue'] : undefined;
        yield items;
      } while (token !== undefined);
    },
  };
}
