// What `hookkeeper serve` looks up for the Machine API to Cluster API migration (src/core/migration.ts): the other
// copy of a Machine whose hook the synchronizer removes or adds, or of a Machine someone else creates in a migration
// namespace, one GET under the lookup budget. No other review, and no other kind, costs a request; a lookup that
// fails or runs out of time verifies no mirror, and refuses such a CREATE.
import { isRecord } from '../../core/guards.js';
import { twinRequest, type TwinRequest } from '../../core/migration.js';
import type { Policy } from '../../core/policy.js';
import type { ReviewContext, ReviewInput, TwinFact } from '../../core/types.js';
import type { Logger } from '../log.js';
import { describeFailure, objectPath } from './api-requests.js';
import { budgetedGet, type BudgetedGetOptions } from './budgeted-get.js';

export interface TwinContextOptions extends BudgetedGetOptions {
  /** The policy in force (hot reloads included): its synchronizers and namespaces. */
  policy: () => Policy | undefined;
  logger: Logger;
}

export interface TwinContext {
  /** The twin a review needs, or undefined at once when it needs none (src/core/migration.ts twinRequest). */
  gather(input: ReviewInput): Promise<ReviewContext> | undefined;
}

export function createTwinContext(options: TwinContextOptions): TwinContext {
  const get = budgetedGet(options);

  async function lookup(req: TwinRequest): Promise<TwinFact> {
    const path = objectPath(req);
    const answer = await get(path);
    if (!answer.ok) return { found: false, reason: answer.reason, message: answer.message };
    const { res } = answer;
    if (res.status === 404) return { found: false, reason: 'NotFound', message: describeFailure(path, res) };
    if (res.status !== 200) return { found: false, reason: 'Error', message: describeFailure(path, res) };
    if (!isRecord(res.body)) return { found: false, reason: 'Error', message: `GET ${path}: not an object` };
    return { found: true, object: res.body };
  }

  return {
    gather(input) {
      const policy = options.policy();
      const req = policy && twinRequest(policy, input);
      if (!req) return undefined;
      return lookup(req).then((twin) => {
        // A CREATE's twin is most often absent: that is an answer, not a failure.
        if (!twin.found && !(input.operation === 'CREATE' && twin.reason === 'NotFound'))
          options.logger.warn(
            { twin: req.key, reason: twin.reason, message: twin.message },
            input.operation === 'CREATE'
              ? 'migration: twin lookup failed; the create is refused, as nothing shows which hooks it must carry'
              : 'migration: twin lookup failed; the removal is judged as any non-owner removal',
          );
        return { twin };
      });
    },
  };
}
