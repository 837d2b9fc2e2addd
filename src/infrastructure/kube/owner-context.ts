// Hook ownership through RBAC as `hookkeeper serve` runs it: the RBAC index and the SubjectAccessReview client,
// set up once at startup from the kubeconfig, with the parent caches' readiness rule: /readyz waits, at most
// syncGraceMs, for the index's first lists. No kubeconfig (a laptop, no cluster): no ownership fact at all, so the
// policy's registry alone decides; a cluster whose RBAC cannot be set up: facts that say nothing is known.
import type { KubeConfig } from '@kubernetes/client-node';
import type { ReviewInput } from '../../core/types.js';
import type { Logger } from '../log.js';
import type { SarAnswer, AccessReviewer } from './subject-access-review.js';
import { type OwnerFacts, type OwnerFactsGatherer, ownerFactsGatherer } from './owner-facts.js';
import { DEFAULT_LOOKUP_BUDGET_MS } from './lookup-budget.js';
import { DEFAULT_SYNC_GRACE_MS } from './parent-context.js';
import type { RbacIndex } from './rbac-index.js';

export interface OwnerContextOptions {
  loadKubeConfig: () => KubeConfig | Promise<KubeConfig>;
  logger: Logger;
  /** The core's: owners whose hooks a request removes, re-owns or adds and whom the registry does not cover. */
  ownersToCheck: (input: ReviewInput, granted?: ReadonlySet<string>) => readonly string[];
  /** For the SubjectAccessReviews of one review; defaults to the parent lookups' budget. */
  budgetMs?: number;
  syncGraceMs?: number;
  now?: () => number;
  /** Tests pass fakes; the defaults load @kubernetes/client-node when first needed. */
  createIndex?: (kubeConfig: KubeConfig, logger: Logger) => RbacIndex | Promise<RbacIndex>;
  createReviewer?: (kubeConfig: KubeConfig, logger: Logger, budgetMs: number) => AccessReviewer;
}

export interface OwnerContext {
  /**
   * The owner facts of one review; synchronous once set up when no SubjectAccessReview is needed; undefined when
   * there is no cluster to ask (no kubeconfig): RBAC is not consulted.
   */
  gather(input: ReviewInput): OwnerFacts | Promise<OwnerFacts | undefined> | undefined;
  /**
   * False at startup until the index has listed every RBAC collection, at most syncGraceMs; then true for good: an
   * index that cannot list never keeps the other rules offline, and its facts say the grants are not known.
   */
  ready(): boolean;
  stop(): void;
}

async function defaultIndex(kubeConfig: KubeConfig, logger: Logger): Promise<RbacIndex> {
  const { createRbacIndex } = await import('./rbac-index.js');
  return createRbacIndex({ kubeConfig, logger });
}

export function createOwnerContext(options: OwnerContextOptions): OwnerContext {
  const now = options.now ?? Date.now;
  const budgetMs = options.budgetMs ?? DEFAULT_LOOKUP_BUDGET_MS;
  const waitUntil = now() + (options.syncGraceMs ?? DEFAULT_SYNC_GRACE_MS);
  let readyForGood = false;
  let stopped = false;
  let index: RbacIndex | undefined;
  let reviewer: AccessReviewer | undefined;
  let gatherer: OwnerFactsGatherer | undefined;
  let settled = false;
  let noCluster = false;

  const setup = (async (): Promise<void> => {
    try {
      let kubeConfig: KubeConfig;
      try {
        kubeConfig = await options.loadKubeConfig();
      } catch (err) {
        noCluster = true;
        options.logger.info(
          { reason: err instanceof Error ? err.message : String(err) },
          'hook owners through RBAC not consulted (no cluster): the policy registry decides',
        );
        return;
      }
      const createReviewer =
        options.createReviewer ??
        (async (kc: KubeConfig, logger: Logger, ms: number) => {
          const [{ createAccessReviewer }, { kubeConfigAccess }] = await Promise.all([
            import('./subject-access-review.js'),
            import('./api-requests.js'),
          ]);
          return createAccessReviewer({ access: kubeConfigAccess(kc), logger, budgetMs: ms });
        });
      const [i, r] = await Promise.all([
        (options.createIndex ?? defaultIndex)(kubeConfig, options.logger),
        createReviewer(kubeConfig, options.logger, budgetMs),
      ]);
      if (stopped) {
        i.stop();
        r.close();
        return;
      }
      index = i;
      reviewer = r;
      gatherer = ownerFactsGatherer({ index: i, reviewer: r, ownersToCheck: options.ownersToCheck });
    } catch (err) {
      // The registry still works: serve, and let every fact say RBAC could not be consulted.
      options.logger.error({ err }, 'hook owners through RBAC unavailable');
    } finally {
      settled = true;
    }
  })();

  /** Without the index and the client: nothing granted for sure, nothing answered. */
  const unavailable = (input: ReviewInput): OwnerFacts => ({
    granted: new Set(),
    access: Object.fromEntries(options.ownersToCheck(input).map((o): [string, SarAnswer] => [o, 'unknown'])),
    grantsKnown: false,
  });

  return {
    gather(input) {
      if (gatherer) return gatherer(input);
      if (settled) return noCluster ? undefined : unavailable(input);
      return setup.then(() => (gatherer ? gatherer(input) : noCluster ? undefined : unavailable(input)));
    },
    ready() {
      if (readyForGood) return true;
      const expired = now() >= waitUntil;
      if (!expired && (!settled || (index !== undefined && !index.ready()))) return false;
      if (index && !index.ready())
        options.logger.warn('RBAC index not listed after the startup grace; hook-owner grants count as unknown');
      readyForGood = true;
      return true;
    },
    stop() {
      stopped = true;
      index?.stop();
      reviewer?.close();
    },
  };
}
