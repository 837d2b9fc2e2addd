// One watched collection (list, then watch), the parent caches' and the RBAC index's, over hookkeeper's own requests
// (api-requests.ts). Not client-node's informer: its 1.4 watch has no deadline (kubernetes-client/javascript#2665),
// so a connection that died silently went unnoticed for about 12 minutes (TCP keepalive) while the cache said it was
// healthy; here a watch that hears nothing, not even a bookmark, for INACTIVITY_MS is abandoned and resumed.
// https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes
import { isRecord } from '../../core/guards.js';
import type { KubeObject } from '../../core/types.js';
import type { Logger } from '../log.js';
import { withDeadline } from './deadline.js';
import { type ApiGet, type ApiStream, describeFailure } from './api-requests.js';

/** Listing a large collection can take a while; it runs in the background, never on an admission request. */
const PAGE_TIMEOUT_MS = 60_000;
/** kubectl's page size, as the audit's lister (lister.ts). */
const PAGE_SIZE = 500;
const MIN_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/**
 * kube-apiserver sends a watcher asking for them a bookmark on a minute's timer, once its cache's resourceVersion is
 * past the watch's start, and one 2 s before it ends the watch (staging/src/k8s.io/apiserver/pkg/storage/cacher/:
 * cacher.go dispatchEvents; cache_watcher.go nextBookmarkTime, process). Measured on 1.37.2: every 58.7 to 60.3 s;
 * on a quiet collection of a fresh API server, the first only after 120 s. Three minutes of silence is a dead
 * connection, not a quiet collection. Without bookmarks (a resource with its watch cache off) the watch is only
 * resumed, from the same resourceVersion.
 */
export const INACTIVITY_MS = 180_000;

/** Timers the loop uses, injected so tests drive the deadline and the backoff. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref(); // a cache never keeps the process alive on its own
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A GET for the list's pages and a streamed GET for the watch (pooledGet's, in src). */
export interface WatchTransport {
  get: ApiGet;
  stream: ApiStream;
}

export interface WatchOptions {
  transport: WatchTransport;
  /** A collection over all namespaces ("/apis/rbac.authorization.k8s.io/v1/roles"). */
  path: string;
  log: Logger;
  /** Names the collection in log messages. */
  what: string;
  timers?: Timers;
  random?: () => number;
  /** The watch's timeoutSeconds; default 5 to 10 minutes at random. */
  watchTimeoutSeconds?: number;
  inactivityMs?: number;
  backoffMs?: { min: number; max: number };
  pageSize?: number;
}

export type WatchEvent = 'add' | 'update' | 'delete';

export interface WatchedCollection {
  /** namespace undefined (or '') for a cluster-scoped object. */
  get(name: string, namespace?: string): KubeObject | undefined;
  /** Register before the first list completes, i.e. in the same turn as watchCollection(). */
  on(event: WatchEvent, handler: (obj: KubeObject) => void): void;
  /** The first list has completed: the cache holds every object that existed then. */
  synced(): boolean;
  /** Synced, and a watch is open and not silent (while listing or watching fails, deletions may be missed). */
  healthy(): boolean;
  stop(): void;
}

/** Why a watch ended without an error: the API server closed it, it went silent, or its resourceVersion is gone. */
type WatchEnd = 'ended' | 'empty' | 'silent' | 'gone';

/** Why the loop itself abandoned a watch (not the transport, not stop()). */
class Silent extends Error {}
class Gone extends Error {}

const metadataOf = (obj: unknown): Record<string, unknown> =>
  isRecord(obj) && isRecord(obj['metadata']) ? obj['metadata'] : {};
const stringAt = (meta: Record<string, unknown>, key: string): string | undefined =>
  typeof meta[key] === 'string' && meta[key] !== '' ? meta[key] : undefined;
const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? ''}/${name}`;

export function watchCollection(options: WatchOptions): WatchedCollection {
  const { transport, path, log, what } = options;
  const timers = options.timers ?? realTimers;
  const random = options.random ?? Math.random;
  const { min, max } = options.backoffMs ?? { min: MIN_BACKOFF_MS, max: MAX_BACKOFF_MS };
  const inactivityMs = options.inactivityMs ?? INACTIVITY_MS;
  const objects = new Map<string, KubeObject>();
  const handlers: Record<WatchEvent, ((obj: KubeObject) => void)[]> = { add: [], update: [], delete: [] };
  const stopping = new AbortController();
  let synced = false;
  let healthy = false;
  /** Where the next watch starts; undefined: list first. */
  let resourceVersion: string | undefined;
  let backoff = min;
  let sleeping: { handle: unknown; wake: () => void } | undefined;

  const emit = (event: WatchEvent, obj: KubeObject): void => {
    for (const h of handlers[event]) h(obj);
  };
  const upsert = (obj: KubeObject): void => {
    const meta = metadataOf(obj);
    const name = stringAt(meta, 'name');
    if (name === undefined) return;
    const key = keyOf(stringAt(meta, 'namespace'), name);
    const old = objects.get(key);
    objects.set(key, obj);
    if (!old) emit('add', obj);
    else if (stringAt(metadataOf(old), 'resourceVersion') !== stringAt(meta, 'resourceVersion')) emit('update', obj);
  };
  const remove = (obj: KubeObject): void => {
    const meta = metadataOf(obj);
    const key = keyOf(stringAt(meta, 'namespace'), stringAt(meta, 'name') ?? '');
    if (objects.delete(key)) emit('delete', obj);
  };

  /** Every page under one snapshot; then what vanished is deleted and the rest added or updated. */
  const list = async (): Promise<void> => {
    const fresh = new Map<string, KubeObject>();
    let token: string | undefined;
    let listed: string | undefined;
    do {
      const query = new URLSearchParams({
        limit: String(options.pageSize ?? PAGE_SIZE),
        ...(token !== undefined ? { continue: token } : {}),
      });
      const page = `${path}?${query.toString()}`;
      const res = await withDeadline(PAGE_TIMEOUT_MS, (signal) => transport.get(page, signal), stopping.signal);
      // An expired continue token (410) too: a cache needs one snapshot, so the list starts again, after the backoff.
      if (res.status !== 200) throw new Error(describeFailure(page, res));
      if (!isRecord(res.body) || !Array.isArray(res.body['items']))
        throw new Error(`GET ${page}: HTTP 200 with something other than a list`);
      for (const item of res.body['items'].filter(isRecord)) {
        const meta = metadataOf(item);
        const name = stringAt(meta, 'name');
        if (name !== undefined) fresh.set(keyOf(stringAt(meta, 'namespace'), name), item);
      }
      const meta = metadataOf(res.body);
      listed = stringAt(meta, 'resourceVersion');
      token = stringAt(meta, 'continue');
    } while (token !== undefined);
    if (listed === undefined) throw new Error(`GET ${path}: a list without a resourceVersion`);
    for (const [key, old] of objects) if (!fresh.has(key)) remove(old);
    for (const obj of fresh.values()) upsert(obj);
    resourceVersion = listed;
    if (!synced) log.info({ objects: objects.size }, `${what} synced`);
    synced = true;
    healthy = true;
    backoff = min;
  };

  /** One event line: applied, its resourceVersion kept; 'gone' when the API server says ours is too old. */
  const apply = (line: string): 'gone' | undefined => {
    const event: unknown = JSON.parse(line);
    if (!isRecord(event) || typeof event['type'] !== 'string' || !isRecord(event['object']))
      throw new Error(`watch ${path}: not a watch event: ${line.slice(0, 200)}`);
    const obj = event['object'];
    switch (event['type']) {
      case 'ADDED':
      case 'MODIFIED':
        upsert(obj);
        break;
      case 'DELETED':
        remove(obj);
        break;
      case 'BOOKMARK': // nothing changed up to its resourceVersion
        break;
      case 'ERROR': {
        // A Status: 410 (Expired, Gone) when the resourceVersion was compacted away; relisting is the only way on.
        if (obj['code'] === 410) return 'gone';
        const message = typeof obj['message'] === 'string' ? obj['message'] : JSON.stringify(obj);
        throw new Error(`watch ${path}: the API server sent an error: ${message}`);
      }
      default:
        throw new Error(`watch ${path}: unknown event type ${JSON.stringify(event['type'])}`);
    }
    resourceVersion = stringAt(metadataOf(obj), 'resourceVersion') ?? resourceVersion;
    return undefined;
  };

  const watch = async (from: string): Promise<WatchEnd> => {
    const controller = new AbortController();
    const follow = (): void => controller.abort(stopping.signal.reason);
    stopping.signal.addEventListener('abort', follow, { once: true });
    let heard = false;
    let deadline: unknown;
    // Armed from the request on: a connection that never answers is as silent as one that stopped.
    const arm = (): void => {
      timers.clearTimeout(deadline);
      deadline = timers.setTimeout(() => controller.abort(new Silent()), inactivityMs);
    };
    arm();
    const query = new URLSearchParams({
      watch: 'true',
      allowWatchBookmarks: 'true',
      resourceVersion: from,
      // Like client-go's reflector, 5 to 10 minutes: watches of many replicas do not all end together.
      timeoutSeconds: String(options.watchTimeoutSeconds ?? Math.floor(300 * (1 + random()))),
    });
    try {
      const res = await transport.stream(`${path}?${query.toString()}`, controller.signal, {
        open: () => {
          healthy = true;
        },
        line: (text) => {
          if (controller.signal.aborted) return; // the rest of a chunk after an ERROR or a bad line
          heard = true;
          arm();
          try {
            if (apply(text) === 'gone') controller.abort(new Gone());
          } catch (err) {
            controller.abort(err);
          }
        },
      });
      if (res.status === 410) return 'gone';
      if (res.status !== 200) throw new Error(describeFailure(path, res));
      return heard ? 'ended' : 'empty';
    } catch (err) {
      if (controller.signal.reason instanceof Gone) return 'gone';
      if (controller.signal.reason instanceof Silent) return 'silent';
      throw err;
    } finally {
      timers.clearTimeout(deadline);
      stopping.signal.removeEventListener('abort', follow);
    }
  };

  /** The current step with jitter (half to all of it), then the next step doubled up to the cap. */
  const nextDelay = (): number => {
    const delay = Math.round(backoff * (0.5 + random() / 2));
    backoff = Math.min(backoff * 2, max);
    return delay;
  };
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      sleeping = { handle: timers.setTimeout(resolve, ms), wake: resolve };
    });

  const run = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      try {
        if (resourceVersion === undefined) await list();
        const from = resourceVersion;
        if (from === undefined) continue;
        const end = await watch(from);
        if (end === 'gone') {
          // Changes since `from` may be lost: answers come from the API until the relist.
          healthy = false;
          log.info({ resourceVersion: from }, `${what}: resourceVersion too old (410); relisting`);
          resourceVersion = undefined;
        } else if (end === 'silent') {
          healthy = false;
          log.warn({ silentMs: inactivityMs }, `${what}: nothing from the watch, not even a bookmark; resuming it`);
        } else if (end === 'ended') {
          backoff = min;
        } else {
          // The API server closed a watch that brought nothing: resumed, but not at once, or a server (or proxy) that
          // closes every watch at once would be asked again without pause.
          await sleep(nextDelay());
        }
      } catch (err) {
        if (stopping.signal.aborted) return;
        healthy = false;
        const retryInMs = nextDelay();
        log.warn({ err, retryInMs }, `${what}: list or watch failed; retrying`);
        await sleep(retryInMs);
      }
    }
  };
  void run();

  return {
    get: (name, namespace) => objects.get(keyOf(namespace === '' ? undefined : namespace, name)),
    on: (event, handler) => handlers[event].push(handler),
    synced: () => synced,
    healthy: () => healthy,
    stop() {
      healthy = false;
      stopping.abort(new Error('stopped'));
      if (sleeping) {
        timers.clearTimeout(sleeping.handle);
        sleeping.wake();
      }
    },
  };
}
