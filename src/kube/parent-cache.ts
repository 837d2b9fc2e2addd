// Watch-backed caches of parent kinds: one @kubernetes/client-node informer (list, then watch) per kind, restarted
// with backoff when listing or watching fails, so most children find their parent without an API round trip.
import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
} from '@kubernetes/client-node';
import type { ParentKindRef } from '../core/policy.js';
import type { Logger } from '../log.js';
import { type ApiGet, collectionPath, describeFailure } from './http-get.js';

export interface ParentCache {
  /** namespace '' for a cluster-scoped kind. */
  get(name: string, namespace: string): KubernetesObject | undefined;
  /** The first list has completed: the cache holds every object that existed then. */
  synced(): boolean;
  stop(): void;
}

export type CacheFactory = (kind: ParentKindRef) => ParentCache;

/** Listing a large kind can take a while; it runs in the background, never on an admission request. */
const LIST_TIMEOUT_MS = 60_000;
const MIN_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

export function watchCaches(kubeConfig: KubeConfig, get: ApiGet, logger: Logger): CacheFactory {
  return (kind) => {
    const path = collectionPath(kind);
    const log = logger.child({ parentKind: `${kind.apiVersion}/${kind.kind}` });
    let synced = false;
    // While listing or watching is failing the cache may miss deletions: lookups then go to the API.
    let healthy = false;
    let stopped = false;
    let backoff = MIN_BACKOFF_MS;
    let retry: NodeJS.Timeout | undefined;

    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      const res = await get(path, AbortSignal.timeout(LIST_TIMEOUT_MS));
      // ListWatch relists from scratch on 410 Gone; the statusCode tells it so.
      if (res.status !== 200) throw Object.assign(new Error(describeFailure(path, res)), { statusCode: res.status });
      if (!synced)
        log.info(
          { objects: (res.body as KubernetesListObject<KubernetesObject>).items?.length ?? 0 },
          'parent cache synced',
        );
      synced = true;
      healthy = true;
      backoff = MIN_BACKOFF_MS;
      return res.body as KubernetesListObject<KubernetesObject>;
    };
    const informer = makeInformer(kubeConfig, path, list);

    // ListWatch stops on an error (a failed list, a refused watch); restarting is the owner's job.
    const restart = (err: unknown): void => {
      healthy = false;
      if (stopped) return;
      log.warn(
        { err, retryInMs: backoff },
        'parent cache: list or watch failed; lookups fall back to GET until it recovers',
      );
      retry = setTimeout(() => {
        informer.start().catch(restart);
      }, backoff);
      retry.unref();
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    };
    informer.on('error', restart);
    // A restart resumes the watch from the last resourceVersion (or relists after 410 Gone), so nothing is missed.
    informer.on('connect', () => {
      healthy = synced;
    });
    informer.start().catch(restart);

    return {
      get: (name, namespace) => (healthy ? informer.get(name, namespace === '' ? undefined : namespace) : undefined),
      synced: () => synced,
      stop() {
        stopped = true;
        clearTimeout(retry);
        void informer.stop();
      },
    };
  };
}
