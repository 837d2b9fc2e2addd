// What `hookkeeper serve` gathers before a review: the parents named by the policy's child rules, looked up live.
// The lookup (its caches, and @kubernetes/client-node, which is slow to load) exists only once the
// policy in force has child rules; other requests, and servers whose policy has none, pay nothing.
import type { KubeConfig } from '@kubernetes/client-node';
import { parentKinds, parentRequests } from '../../core/children.js';
import type { ParentKindRef, Policy } from '../../core/policy.js';
import type { ParentFact, ReviewContext, ReviewInput } from '../../core/types.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../log.js';
import { DEFAULT_LOOKUP_BUDGET_MS } from './lookup-budget.js';
import type { ParentLookup, ParentLookupOptions } from './parents.js';

/** How long readiness waits at startup for the caches' first list; after that GETs serve until they catch up. */
export const DEFAULT_SYNC_GRACE_MS = 10_000;

export interface ParentContextOptions {
  loadKubeConfig: () => KubeConfig | Promise<KubeConfig>;
  /** Defaults to DEFAULT_LOOKUP_BUDGET_MS. */
  budgetMs?: number;
  logger: Logger;
  syncGraceMs?: number;
  /** Tests pass a fake; defaults to createParentLookup, imported when first needed. */
  createLookup?: (options: ParentLookupOptions) => ParentLookup | Promise<ParentLookup>;
  now?: () => number;
}

export interface ParentContext {
  /** The policy in force, at start and after each reload: starts caches for the parent kinds it names. */
  setPolicy(policy: Policy): void;
  /** The parents a review needs, or undefined at once when it needs none (most reviews: no promise to wait on). */
  gather(input: ReviewInput): Promise<ReviewContext> | undefined;
  /**
   * False only at startup, while the caches of the first policy list (at most syncGraceMs): a reload never
   * makes a serving replica unready, and a kind that cannot be listed never keeps the hook rules offline.
   */
  ready(): boolean;
  stop(): void;
}

async function defaultLookup(options: ParentLookupOptions): Promise<ParentLookup> {
  const { createParentLookup } = await import('./parents.js');
  return createParentLookup(options);
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
  let pending = 0; // policies handed over and not applied yet
  let stopped = false;
  // Policies are applied one after another, so a reload during the first (asynchronous) set-up only adds kinds.
  let applied: Promise<void> = Promise.resolve();

  const apply = async (kinds: readonly ParentKindRef[]): Promise<void> => {
    try {
      await start(kinds);
    } finally {
      pending--;
    }
  };
  const start = async (kinds: readonly ParentKindRef[]): Promise<void> => {
    if (lookup) {
      lookup.watch(kinds);
      return;
    }
    try {
      const kubeConfig = await options.loadKubeConfig();
      const created = await (options.createLookup ?? defaultLookup)({
        kubeConfig,
        kinds,
        budgetMs,
        logger: options.logger,
      });
      if (stopped) {
        created.stop();
        return;
      }
      lookup = created;
      options.logger.info(
        { kinds: kinds.map((k) => `${k.apiVersion}/${k.kind}`), budgetMs },
        'child-resource rules: caching parent kinds',
      );
    } catch (err) {
      // Refusing to serve would take the hook rules down with the child rules: serve, and let each child's
      // onMissingParent decide, with this reason in its message.
      unavailable = `cannot reach the Kubernetes API: ${describeError(err)}`;
      options.logger.error({ err }, 'child-resource rules: parent lookups unavailable');
    }
  };

  return {
    setPolicy(next) {
      policy = next;
      const initial = first;
      first = false;
      const kinds = parentKinds(next);
      if (kinds.length === 0) return;
      if (initial) waitUntil = now() + grace;
      pending++;
      applied = applied.then(() => apply(kinds));
    },
    gather(input) {
      if (!policy) return undefined;
      const requests = parentRequests(policy, input);
      if (requests.length === 0) return undefined;
      return (async () => {
        await applied;
        if (!lookup) {
          const fact: ParentFact = { found: false, reason: 'Error', message: unavailable };
          return { parents: Object.fromEntries(requests.map((r) => [r.key, fact])) };
        }
        return { parents: await lookup.lookup(requests) };
      })();
    },
    ready() {
      if (waitUntil === undefined) return true;
      const expired = now() >= waitUntil;
      if (pending > 0 && !expired) return false;
      if (lookup && !lookup.synced() && !expired) return false;
      if (lookup && !lookup.synced())
        options.logger.warn('parent caches not synced after the startup grace; serving with GET lookups');
      waitUntil = undefined;
      return true;
    },
    stop() {
      stopped = true;
      lookup?.stop();
    },
  };
}
