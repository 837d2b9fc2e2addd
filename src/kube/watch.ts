// One watched collection: a @kubernetes/client-node informer (list, then watch) on an API path, restarted with
// backoff when listing or watching fails. The parent caches and the RBAC index are both built on it. client-node's,
// not one written here (relist on 410 Gone, resume from the last resourceVersion): BENCHMARKS.md; its 1.4 watch has
// no deadline of its own, so a connection that dies silently is noticed by TCP keepalive only.
import {
  type Informer,
  type ObjectCache,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
} from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import { withDeadline } from './deadline.js';
import { type ApiGet, describeFailure } from './api-requests.js';

/** Listing a large collection can take a while; it runs in the background, never on an admission request. */
const LIST_TIMEOUT_MS = 60_000;
const MIN_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

export interface WatchedCollection {
  informer: Informer<KubernetesObject> & ObjectCache<KubernetesObject>;
  /** The first list has completed: the informer holds every object that existed then. */
  synced(): boolean;
  /** Synced, and neither listing nor watching is failing now (while they fail, deletions may be missed). */
  healthy(): boolean;
  stop(): void;
}

/**
 * Starts watching `path` (a collection over all namespaces). Register the informer's add/update/delete handlers
 * before the first list completes, i.e. in the same turn as this call.
 */
export function watchCollection(
  kubeConfig: KubeConfig,
  get: ApiGet,
  path: string,
  log: Logger,
  what: string,
): WatchedCollection {
  let synced = false;
  let healthy = false;
  let stopped = false;
  let backoff = MIN_BACKOFF_MS;
  let retry: NodeJS.Timeout | undefined;

  const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
    const res = await withDeadline(LIST_TIMEOUT_MS, (signal) => get(path, signal));
    // ListWatch relists from scratch on 410 Gone; the statusCode tells it so.
    if (res.status !== 200) throw Object.assign(new Error(describeFailure(path, res)), { statusCode: res.status });
    if (!synced)
      log.info({ objects: (res.body as KubernetesListObject<KubernetesObject>).items?.length ?? 0 }, `${what} synced`);
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
    log.warn({ err, retryInMs: backoff }, `${what}: list or watch failed; retrying`);
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
  // Started on the next turn, so the caller's handlers are registered before any object arrives.
  queueMicrotask(() => {
    if (!stopped) informer.start().catch(restart);
  });

  return {
    informer,
    synced: () => synced,
    healthy: () => healthy,
    stop() {
      stopped = true;
      clearTimeout(retry);
      void informer.stop();
    },
  };
}
