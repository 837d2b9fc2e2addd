// What serve gathers before one review: the parents its child rules name and the hook-owner facts, in parallel under
// the one lookup budget each client enforces. Synchronous (no promise) when no parent is needed and no owner is asked.
import { carrierFor } from '../core/carriers.js';
import type { ReviewContext, ReviewInput } from '../core/types.js';
import type { OwnerContext } from './owner-context.js';
import type { ParentContext } from './parent-context.js';

export type ContextGatherer = (input: ReviewInput) => ReviewContext | Promise<ReviewContext> | undefined;

export function reviewContextGatherer(
  parents: Pick<ParentContext, 'gather'>,
  owners: Pick<OwnerContext, 'gather'>,
): ContextGatherer {
  return (input) => {
    const parentFacts = parents.gather(input);
    // Only objects that carry hooks have owners to judge.
    const ownerFacts = carrierFor(input.kind) ? owners.gather(input) : undefined;
    if (!(ownerFacts instanceof Promise)) {
      if (!parentFacts) return ownerFacts ? { ownership: ownerFacts } : undefined;
      return ownerFacts ? parentFacts.then((c) => ({ ...c, ownership: ownerFacts })) : parentFacts;
    }
    return Promise.all([parentFacts, ownerFacts]).then(([c, ownership]) => ({
      ...(c ?? {}),
      ...(ownership ? { ownership } : {}),
    }));
  };
}
