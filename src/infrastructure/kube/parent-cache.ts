// Watch-backed caches of parent kinds: one watched collection (list-watch.ts: list, then watch, with a deadline on a
// silent watch) per kind, each over its own kept-alive connections, so most children find their parent without an
// API round trip.
import type { KubeConfig } from '@kubernetes/client-node';
import type { ParentKindRef } from '../../core/policy.js';
import type { KubeObject } from '../../core/types.js';
import type { Logger } from '../log.js';
import { collectionPath, kubeConfigAccess, pooledGet } from './api-requests.js';
import { watchCollection } from './list-watch.js';

export interface ParentCache {
  /** namespace '' for a cluster-scoped kind. */
  get(name: string, namespace: string): KubeObject | undefined;
  /** The first list has completed: the cache holds every object that existed then. */
  synced(): boolean;
  stop(): void;
}

export type CacheFactory = (kind: ParentKindRef) => ParentCache;

export function watchCaches(kubeConfig: KubeConfig, logger: Logger): CacheFactory {
  return (kind) => {
    const log = logger.child({ parentKind: `${kind.apiVersion}/${kind.kind}` });
    const pool = pooledGet(kubeConfigAccess(kubeConfig));
    const watched = watchCollection({ transport: pool, path: collectionPath(kind), log, what: 'parent cache' });
    return {
      // While listing or watching is failing, or the watch is silent, the cache may miss deletions: lookups then go
      // to the API.
      get: (name, namespace) => (watched.healthy() ? watched.get(name, namespace) : undefined),
      synced: () => watched.synced(),
      stop: () => {
        watched.stop();
        pool.close();
      },
    };
  };
}
