// What the webhook gathers about hook owners before a review: which owners RBAC protects in the
// object's namespace (the index, from memory) and, for the owners the core asks about, whether the requester may act
// for them (SubjectAccessReviews). Which owners to ask about is the core's to say, so it is passed in.
import { carrierFor, wellFormed } from '../../core/carriers.js';
import { isRecord } from '../../core/guards.js';
import type { KubeObject, Ownership, ReviewInput } from '../../core/types.js';
import type { AccessReviewer } from './subject-access-review.js';
import type { RbacIndex } from './rbac-index.js';

/**
 * The core's ownership fact: owners (among those asked about and the object's hooks' owners) a bound grant protects in
 * the object's namespace, the SubjectAccessReview answers for the owners asked about, and whether the index has
 * listed (grantsKnown false: hookkeeper just started, or cannot list RBAC; the core then allows nothing as unprotected).
 */
export type OwnerFacts = Ownership;

export interface OwnerFactsOptions {
  index: Pick<RbacIndex, 'protectedIn' | 'ready'>;
  reviewer: Pick<AccessReviewer, 'review'>;
  /**
   * The owners whose hooks this request removes, re-owns or adds and whom the policy's registry does not cover;
   * `granted`, when the index has listed, the owners it knows are protected (owner-only-removal's ownersToCheck).
   */
  ownersToCheck: (input: ReviewInput, granted?: ReadonlySet<string>) => readonly string[];
}

/** Facts for one review: synchronous when nobody needs a SubjectAccessReview (most requests: no promise). */
export type OwnerFactsGatherer = (input: ReviewInput) => OwnerFacts | Promise<OwnerFacts>;

function namespaceOf(input: ReviewInput): string | undefined {
  if (input.namespace) return input.namespace;
  const obj = input.object ?? input.oldObject;
  const meta = obj && isRecord(obj['metadata']) ? obj['metadata'] : {};
  return typeof meta['namespace'] === 'string' && meta['namespace'] !== '' ? meta['namespace'] : undefined;
}

function hookOwners(input: ReviewInput): string[] {
  const carrier = carrierFor(input.kind);
  if (!carrier) return [];
  const owners = (obj: KubeObject | null): string[] => wellFormed(carrier.read(obj).hooks).map((h) => h.owner);
  return [...owners(input.object), ...owners(input.oldObject)];
}

export function ownerFactsGatherer(options: OwnerFactsOptions): OwnerFactsGatherer {
  return (input) => {
    const namespace = namespaceOf(input);
    // The core asks only about the object's hooks' owners: whether each is protected is known first.
    const looked = new Set(hookOwners(input));
    const granted = new Set([...looked].filter((o) => o !== '' && options.index.protectedIn(o, namespace)));
    const grantsKnown = options.index.ready();
    const asked = [...new Set(options.ownersToCheck(input, grantsKnown ? granted : undefined))];
    for (const o of asked) if (!looked.has(o) && o !== '' && options.index.protectedIn(o, namespace)) granted.add(o);
    if (asked.length === 0) return { granted, access: {}, grantsKnown };
    const subject = {
      user: input.userInfo.username,
      groups: input.userInfo.groups,
      ...(input.userInfo.uid ? { uid: input.userInfo.uid } : {}),
      // The authorizers see what the API server's own would: a scoped token is asked about as scoped.
      ...(input.userInfo.extra ? { extra: input.userInfo.extra } : {}),
    };
    return options.reviewer.review(subject, asked, namespace).then((access) => ({ granted, access, grantsKnown }));
  };
}
