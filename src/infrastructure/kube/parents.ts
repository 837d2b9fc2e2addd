// Live parent lookups for child-resource rules: the watch-backed cache first, a direct GET on a miss, all under
// one time budget well inside the webhook's timeout, so hookkeeper (through the policy's onMissingParent), not
// the API server's timeout, decides what a slow or unreachable API means.
import type { KubeConfig } from '@kubernetes/client-node';
import { parentFactOf, type ParentRequest } from '../../core/children.js';
import type { ParentKindRef } from '../../core/policy.js';
import type { ParentFact } from '../../core/types.js';
import type { Logger } from '../log.js';
import { RequestTimeout, startDeadline } from './deadline.js';
import { type ApiGet, describeFailure, kubeGet, objectPath } from './api-requests.js';
import { type CacheFactory, type ParentCache, watchCaches } from './parent-cache.js';
import { DEFAULT_LOOKUP_BUDGET_MS } from './lookup-budget.js';

export interface ParentLookupOptions {
  kubeConfig: KubeConfig;
  /** Parent kinds to cache from the start; others are cached when first asked for. */
  kinds: readonly ParentKindRef[];
  budgetMs?: number;
  logger: Logger;
  /** Defaults to a GET with kubeConfig's credentials; tests pass a fake. */
  get?: ApiGet;
  /** Defaults to watched collections with kubeConfig's credentials; `false` for no cache (every lookup is a GET). */
  caches?: CacheFactory | false;
}

export interface ParentLookup {
  /** One fact per request, keyed by request.key; resolves within the budget whatever the API does. */
  lookup(requests: readonly ParentRequest[]): Promise<Record<string, ParentFact>>;
  /** Starts caches for kinds not cached yet (a reloaded policy may name new parents). */
  watch(kinds: readonly ParentKindRef[]): void;
  /** Every cache has listed once. */
  synced(): boolean;
  stop(): void;
}

export function createParentLookup(options: ParentLookupOptions): ParentLookup {
  const budgetMs = options.budgetMs ?? DEFAULT_LOOKUP_BUDGET_MS;
  const get = options.get ?? kubeGet(options.kubeConfig);
  const factory =
    options.caches === false ? undefined : (options.caches ?? watchCaches(options.kubeConfig, options.logger));
  const caches = new Map<string, ParentCache>();
  const cacheFor = (kind: ParentKindRef): ParentCache | undefined => {
    if (!factory) return undefined;
    const id = `${kind.apiVersion}/${kind.kind}`;
    let cache = caches.get(id);
    if (!cache) {
      cache = factory(kind);
      caches.set(id, cache);
    }
    return cache;
  };
  for (const kind of options.kinds) cacheFor(kind);

  async function lookupOne(req: ParentRequest, signal: AbortSignal): Promise<ParentFact> {
    // Only hits are trusted: a parent created a moment ago may not have reached the cache yet.
    const cached = cacheFor(req)?.get(req.name, req.namespace);
    if (cached) return parentFactOf(cached, req);
    const path = objectPath(req);
    try {
      const res = await get(path, signal);
      if (res.status === 200) return parentFactOf(res.body, req);
      if (res.status === 404) return { found: false, reason: 'NotFound', message: describeFailure(path, res) };
      return { found: false, reason: 'Error', message: describeFailure(path, res) };
    } catch (err) {
      if (signal.aborted) return { found: false, reason: 'Timeout', message: `no answer within ${budgetMs} ms` };
      return { found: false, reason: 'Error', message: `GET ${path}: ${(err as Error).message}` };
    }
  }

  return {
    async lookup(requests) {
      if (requests.length === 0) return {};
      const timeout: ParentFact = { found: false, reason: 'Timeout', message: `no answer within ${budgetMs} ms` };
      // One budget for all of them; the race, not only the abort, bounds the wait: a GET that ignores its signal
      // cannot hold the review.
      const budget = startDeadline(budgetMs);
      try {
        const facts = await Promise.all(
          requests.map(async (req) => {
            const fact = await budget
              .race(lookupOne(req, budget.signal))
              .catch((err: unknown) => (err instanceof RequestTimeout ? timeout : Promise.reject(err)));
            if (!fact.found && fact.reason !== 'NotFound')
              options.logger.warn(
                { parent: req.key, reason: fact.reason, message: fact.message },
                'parent lookup failed',
              );
            return [req.key, fact] as const;
          }),
        );
        return Object.fromEntries(facts);
      } finally {
        budget.end();
      }
    },
    watch(kinds) {
      for (const kind of kinds) cacheFor(kind);
    },
    synced: () => [...caches.values()].every((c) => c.synced()),
    stop() {
      for (const c of caches.values()) c.stop();
      caches.clear();
    },
  };
}
