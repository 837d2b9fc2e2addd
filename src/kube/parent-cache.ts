// Watch-backed caches of parent kinds: one watched collection (watch.ts: an informer, restarted with backoff) per
// kind, so most children find their parent without an API round trip.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { ParentKindRef } from '../core/policy.js';
import type { Logger } from '../log.js';
import { type ApiGet, collectionPath } from './api-requests.js';
import { watchCollection } from './watch.js';

export interface ParentCache {
  /** namespace '' for a cluster-scoped kind. */
  get(name: string, namespace: string): KubernetesObject | undefined;
  /** The first list has completed: the cache holds every object that existed then. */
  synced(): boolean;
  stop(): void;
}

export type CacheFactory = (kind: ParentKindRef) => ParentCache;

export function watchCaches(kubeConfig: KubeConfig, get: ApiGet, logger: Logger): CacheFactory {
  return (kind) => {
    const log = logger.child({ parentKind: `${kind.apiVersion}/${kind.kind}` });
    const watched = watchCollection(kubeConfig, get, collectionPath(kind), log, 'parent cache');
    return {
      // While listing or watching is failing the cache may miss deletions: lookups then go to the API.
      get: (name, namespace) =>
        watched.healthy() ? watched.informer.get(name, namespace === '' ? undefined : namespace) : undefined,
      synced: () => watched.synced(),
      stop: () => watched.stop(),
    };
  };
}
