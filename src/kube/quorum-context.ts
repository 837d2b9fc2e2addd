// What `hookkeeper serve` looks up for quorum protection (src/core/quorum.ts): the control-plane Machines of the
// cluster a quorum hook's removal concerns, one LIST under the lookup budget, at most MAX_QUORUM_MACHINES. No other
// review costs a request; a list that fails, runs out of time or holds more than the bound refuses the removal.
import type { KubeConfig } from '@kubernetes/client-node';
import { isRecord } from '../core/guards.js';
import { quorumLookup, type QuorumLookup } from '../core/quorum.js';
import type { Policy } from '../core/policy.js';
import type { QuorumFact, ReviewContext, ReviewInput } from '../core/types.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import { type ApiGet, describeFailure } from './api-requests.js';
import { RequestTimeout, startDeadline } from './deadline.js';
import { DEFAULT_LOOKUP_BUDGET_MS } from './lookup-budget.js';

export interface QuorumContextOptions {
  loadKubeConfig: () => KubeConfig | Promise<KubeConfig>;
  /** The policy in force (hot reloads included): its quorum hooks. */
  policy: () => Policy | undefined;
  logger: Logger;
  /** Defaults to DEFAULT_LOOKUP_BUDGET_MS. */
  budgetMs?: number;
  /** Defaults to a GET with the kubeconfig's credentials, loaded when first needed; tests pass a fake. */
  get?: ApiGet;
}

export interface QuorumContext {
  /** The cluster's Machines a review needs, or undefined at once when it needs none (core quorumLookup). */
  gather(input: ReviewInput): Promise<ReviewContext> | undefined;
}

/** The list's path with its query: the selector and the bound. */
export function quorumListPath(req: QuorumLookup): string {
  return `${req.path}?${new URLSearchParams({ labelSelector: req.labelSelector, limit: String(req.limit) }).toString()}`;
}

export function createQuorumContext(options: QuorumContextOptions): QuorumContext {
  const budgetMs = options.budgetMs ?? DEFAULT_LOOKUP_BUDGET_MS;
  let getter: Promise<ApiGet> | undefined;
  const apiGet = (): Promise<ApiGet> =>
    (getter ??= options.get
      ? Promise.resolve(options.get)
      : (async () => {
          const [{ kubeGet }, kc] = await Promise.all([import('./api-requests.js'), options.loadKubeConfig()]);
          return kubeGet(kc);
        })());

  async function lookup(req: QuorumLookup): Promise<QuorumFact> {
    const path = quorumListPath(req);
    // The race, not only the abort, bounds the wait: a GET that ignores its signal cannot hold the review.
    const budget = startDeadline(budgetMs);
    try {
      const get = await budget.race(apiGet());
      const res = await budget.race(get(path, budget.signal));
      if (res.status !== 200) return { found: false, reason: 'Error', message: describeFailure(path, res) };
      const body = res.body;
      if (!isRecord(body) || !Array.isArray(body['items']))
        return { found: false, reason: 'Error', message: `GET ${path}: not a list` };
      const meta = isRecord(body['metadata']) ? body['metadata'] : {};
      // A continue token: more Machines than the bound. Judging from the first page could miss the deleting one.
      if (typeof meta['continue'] === 'string' && meta['continue'] !== '')
        return {
          found: false,
          reason: 'TooMany',
          message: `more than ${req.limit} Machines match ${req.labelSelector}`,
        };
      return { found: true, machines: body['items'].filter(isRecord) };
    } catch (err) {
      if (err instanceof RequestTimeout) return { found: false, reason: 'Timeout', message: err.message };
      return { found: false, reason: 'Error', message: `GET ${path}: ${describeError(err)}` };
    } finally {
      budget.end();
    }
  }

  return {
    gather(input) {
      const policy = options.policy();
      const req = policy && quorumLookup(policy, input);
      if (!req) return undefined;
      return lookup(req).then((quorum) => {
        if (!quorum.found)
          options.logger.warn(
            { quorum: req.key, reason: quorum.reason, message: quorum.message },
            "quorum: the cluster's control-plane Machines could not be listed; the quorum hook's removal is refused",
          );
        return { quorum };
      });
    },
  };
}
