// What `hookkeeper serve` looks up for quorum protection (src/core/quorum.ts): the control-plane Machines of the
// cluster a quorum hook's removal concerns, one LIST under the lookup budget, at most MAX_QUORUM_MACHINES. No other
// review costs a request; a list that fails, runs out of time or holds more than the bound refuses the removal.
import { isRecord } from '../../core/guards.js';
import { quorumLookup, type QuorumLookup } from '../../core/quorum.js';
import type { Policy } from '../../core/policy.js';
import type { QuorumFact, ReviewContext, ReviewInput } from '../../core/types.js';
import type { Logger } from '../log.js';
import { describeFailure } from './api-requests.js';
import { budgetedGet, type BudgetedGetOptions } from './budgeted-get.js';

export interface QuorumContextOptions extends BudgetedGetOptions {
  /** The policy in force (hot reloads included): its quorum hooks. */
  policy: () => Policy | undefined;
  logger: Logger;
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
  const get = budgetedGet(options);

  async function lookup(req: QuorumLookup): Promise<QuorumFact> {
    const path = quorumListPath(req);
    const answer = await get(path);
    if (!answer.ok) return { found: false, reason: answer.reason, message: answer.message };
    const { res } = answer;
    if (res.status !== 200) return { found: false, reason: 'Error', message: describeFailure(path, res) };
    const body = res.body;
    if (!isRecord(body) || !Array.isArray(body['items']))
      return { found: false, reason: 'Error', message: `GET ${path}: not a list` };
    const meta = isRecord(body['metadata']) ? body['metadata'] : {};
    // A continue token: more Machines than the bound. Judging from the first page could miss the deleting one.
    if (typeof meta['continue'] === 'string' && meta['continue'] !== '')
      return { found: false, reason: 'TooMany', message: `more than ${req.limit} Machines match ${req.labelSelector}` };
    return { found: true, machines: body['items'].filter(isRecord) };
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
