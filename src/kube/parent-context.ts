// What `hookkeeper serve` gathers before a review: the parents named by the policy's child rules, looked up live.
// The lookup (and its caches) exists only once the policy in force has child rules; other requests pay nothing.
import type { KubeConfig } from '@kubernetes/client-node';
import { parentKinds, parentRequests } from '../core/children.js';
import type { Policy } from '../core/policy.js';
import type { ParentFact, ReviewContext, ReviewInput } from '../core/types.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import { createParentLookup, DEFAULT_LOOKUP_BUDGET_MS, type ParentLookup, type ParentLookupOptions } from './parents.js';

/** How long readiness waits at startup for the caches' first list; after that GETs serve until they catch up. */
export const DEFAULT_SYNC_GRACE_MS = 10_000;

export interface ParentContextOptions {
  loadKubeConfig: () => KubeConfig;
  /** Defaults to DEFAULT_LOOKUP_BUDGET_MS. */
  budgetMs?: number;
  logger: Logger;
  syncGraceMs?: number;
  /** Tests pass a fake; defaults to createParentLookup. */
  createLookup?: (options: ParentLookupOptions) => ParentLookup;
  now?: () => number;
}

export interface ParentContext {
  /** The policy in force, at start and after each reload: starts caches for the parent kinds it names. */
  setPolicy(policy: Policy): void;
  gather(input: ReviewInput): Promise<ReviewContext | undefined>;
  /**
   * False only at startup, while the caches of the first policy list (at most syncGraceMs): a reload never
   * makes a serving replica unready, and a kind that cannot be listed never keeps the hook rules offline.
   */
  ready(): boolean;
  stop(): void;
}

export function createParentContext(options: ParentContextOptions): ParentContext {
  const now = options.now ?? Date.now;
  const grace = options.syncGraceMs ?? DEFAULT_SYNC_GRACE_MS;
  const budgetMs = options.budgetMs ?? DEFAULT_LOOKUP_BUDGET_MS;
  let policy: Policy | undefined;
  let lookup: ParentLookup | undefined;
  let unavailable = 'parent lookups are not set up';
  let first = true;
  let waitUntil: number | undefined;

  return {
    setPolicy(next) {
      policy = next;
      const initial = first;
      first = false;
      const kinds = parentKinds(next);
      if (kinds.length === 0) return;
      if (lookup) {
        lookup.watch(kinds);
        return;
      }
      try {
        lookup = (options.createLookup ?? createParentLookup)({ kubeConfig: options.loadKubeConfig(), kinds, budgetMs, logger: options.logger });
        if (initial) waitUntil = now() + grace;
        options.logger.info({ kinds: kinds.map((k) => `${k.apiVersion}/${k.kind}`), budgetMs }, 'child-resource rules: caching parent kinds');
      } catch (err) {
        // Refusing to serve would take the hook rules down with the child rules: serve, and let each child's
        // onMissingParent decide, with this reason in its message.
        unavailable = `cannot reach the Kubernetes API: ${describeError(err)}`;
        options.logger.error({ err }, 'child-resource rules: parent lookups unavailable');
      }
    },
    async gather(input) {
      if (!policy) return undefined;
      const requests = parentRequests(policy, input);
      if (requests.length === 0) return undefined;
      if (!lookup) {
        const fact: ParentFact = { found: false, reason: 'Error', message: unavailable };
        return { parents: Object.fromEntries(requests.map((r) => [r.key, fact])) };
      }
      return { parents: await lookup.lookup(requests) };
    },
    ready() {
      if (waitUntil === undefined || !lookup) return true;
      if (lookup.synced() || now() >= waitUntil) {
        if (!lookup.synced()) options.logger.warn('parent caches not synced after the startup grace; serving with GET lookups');
        waitUntil = undefined;
      }
      return waitUntil === undefined;
    },
    stop() {
      lookup?.stop();
    },
  };
}
