// What serve gathers before one review: the parents its child rules name, the hook-owner facts, for the migration's
// synchronizer a Machine's twin, and for a quorum hook's removal the cluster's control-plane Machines, in parallel
// under the one lookup budget each client enforces. Synchronous (no promise) when none needs a request.
import { carrierFor } from '../../core/carriers.js';
import type { ReviewContext, ReviewInput } from '../../core/types.js';
import type { OwnerContext } from './owner-context.js';
import type { ParentContext } from './parent-context.js';
import type { QuorumContext } from './quorum-context.js';
import type { TwinContext } from './twin-context.js';

export type ContextGatherer = (input: ReviewInput) => ReviewContext | Promise<ReviewContext> | undefined;

type Gathered = ReviewContext | Promise<ReviewContext | undefined> | undefined;

export function reviewContextGatherer(
  parents: Pick<ParentContext, 'gather'>,
  owners: Pick<OwnerContext, 'gather'>,
  twins?: Pick<TwinContext, 'gather'>,
  quorum?: Pick<QuorumContext, 'gather'>,
): ContextGatherer {
  return (input) => {
    // Only objects that carry hooks have owners to judge.
    const ownerFacts = carrierFor(input.kind) ? owners.gather(input) : undefined;
    const ownership: Gathered =
      ownerFacts instanceof Promise
        ? ownerFacts.then((o) => (o ? { ownership: o } : undefined))
        : ownerFacts && { ownership: ownerFacts };
    const parts: Gathered[] = [parents.gather(input), ownership, twins?.gather(input), quorum?.gather(input)];
    const combine = (found: ReadonlyArray<ReviewContext | undefined>): ReviewContext | undefined => {
      const present = found.filter((c): c is ReviewContext => c !== undefined);
      return present.length === 0 ? undefined : present.reduce<ReviewContext>((all, c) => ({ ...all, ...c }), {});
    };
    const pending = parts.filter((p): p is Promise<ReviewContext | undefined> => p instanceof Promise);
    if (pending.length === 0) return combine(parts as Array<ReviewContext | undefined>);
    return Promise.all(parts.map((p) => Promise.resolve(p))).then((found) => combine(found) ?? {});
  };
}
