// The hook owners the webhook's transport asks RBAC about for a request (a SubjectAccessReview each): for a Machine's
// removals, read off the route list (./routes.ts), so the question is asked exactly where its answer can decide.
import { carrierFor } from '../../core/carriers.js';
import { isBreakGlass } from '../../core/identity.js';
import {
  judgedAdditions,
  MAX_OWNERS_CHECKED,
  ownedChanges,
  registeredActor,
  registeredIdentities,
} from '../../core/ownership.js';
import type { Policy } from '../../core/policy.js';
import { quorumRemoval } from '../../core/quorum.js';
import type { ReviewInput } from '../../core/types.js';
import { routeForFacts } from './routes.js';
import { templateRemovalRbacDecides } from '../template-hook-removed/rule.js';
import { additionRouteForFacts, type AdditionFacts } from './addition-routes.js';

/** What the transport knows of a changed hook's owner before asking RBAC; `granted` undefined: grants not listed. */
export interface KnownBeforeAsking {
  actsFor: boolean;
  breakGlass: boolean;
  registered: boolean;
  granted: boolean | undefined;
}

const decidesMemo = new WeakMap<Policy, Map<string, boolean>>();

/**
 * Whether RBAC's answer about an owner can change its removal's outcome: a grant naming the owner (route input
 * rbacNamed) takes the list to another outcome than RBAC allowing nothing does, for some value of what the
 * transport cannot know yet (the migration twin; the grants, when not listed). Wildcard rights are not a reason to
 * ask: the probe follows an owner's allowed answer, refining an answer already asked for, so an owner whose hook
 * goes whatever RBAC says is not warned about for them (nor in native mode, whose families ask as this does).
 */
export function rbacDecides(policy: Policy, known: KnownBeforeAsking): boolean {
  let memo = decidesMemo.get(policy);
  if (!memo) decidesMemo.set(policy, (memo = new Map<string, boolean>()));
  const key = `${known.actsFor}/${known.breakGlass}/${known.registered}/${known.granted}`;
  let decides = memo.get(key);
  if (decides === undefined) {
    const listed = known.granted !== undefined;
    decides = [false, true].some((mirrored) =>
      (listed ? [known.granted === true] : [false, true]).some((granted) =>
        (listed ? [false] : [false, true]).some((grantsUnknown) => {
          const facts = { ...known, mirrored, granted, grantsUnknown, wildcard: false };
          const allowed = routeForFacts(policy, { ...facts, rbacNamed: true });
          return allowed.outcome !== routeForFacts(policy, { ...facts, rbacNamed: false }).outcome;
        }),
      ),
    );
    memo.set(key, decides);
  }
  return decides;
}

/**
 * Whether RBAC's answer about an added hook's owner can change the addition's outcome (the addition route list,
 * ./addition-routes.ts): a grant naming the owner against none, whether or not the synchronizer mirrors the hook.
 */
export function additionRbacDecides(
  policy: Policy,
  known: Omit<AdditionFacts, 'mirrored' | 'rbacNamed' | 'wildcard'>,
): boolean {
  return [false, true].some((mirrored) => {
    const facts = { ...known, mirrored, wildcard: false };
    const allowed = additionRouteForFacts(policy, { ...facts, rbacNamed: true });
    return allowed.outcome !== additionRouteForFacts(policy, { ...facts, rbacNamed: false }).outcome;
  });
}

/**
 * The owners RBAC is asked about for a request: whose quorum hooks it removes (quorum-protection's owner check), whose
 * hooks it adds under a guarded name (squatting) where the answer can decide (additionRbacDecides), removes or re-owns
 * from a Machine where it can (rbacDecides), or removes or re-owns from a template where template-hook-removed's
 * predicate can turn on it (every owner but the requester's registered ones, as its native form asks). At most
 * MAX_OWNERS_CHECKED, the first in order; an empty owner has no name to ask about. `granted`: the owners the
 * transport knows RBAC protects, default the input's ownership fact when its grants are known.
 */
export function ownersToCheck(
  policy: Policy,
  input: ReviewInput,
  granted: ReadonlySet<string> | undefined = input.context?.ownership?.grantsKnown
    ? input.context.ownership.granted
    : undefined,
): readonly string[] {
  if (input.object === null) return [];
  const carrier = carrierFor(input.kind);
  if (!carrier) return [];
  const user = input.userInfo;
  const breakGlass = isBreakGlass(user, policy);
  const guarding = policy.enforcement['owner-only-removal'] !== 'off';
  const out = new Set<string>();
  // At most MAX_OWNERS_CHECKED, the first ones in order: a request with 100,000 hooks builds no larger set.
  const room = (owner: string): boolean => owner !== '' && !out.has(owner) && out.size < MAX_OWNERS_CHECKED;
  // A quorum hook's removal passes a deleting peer only by its owner's hand, break-glass's included
  // (quorum-protection), whatever owner-only-removal says: asked first, as that rule fails closed.
  for (const h of quorumRemoval(policy, input)?.removed ?? [])
    if (room(h.owner) && !registeredActor(policy, user, h.owner)) out.add(h.owner);
  // Hooks added under another's name (./additions.ts says which are judged), where RBAC's answer can decide.
  if (guarding)
    for (const h of judgedAdditions(policy, input, carrier))
      if (
        room(h.owner) &&
        additionRbacDecides(policy, {
          actsFor: registeredActor(policy, user, h.owner),
          breakGlass,
          registered: registeredIdentities(policy, h.owner) !== undefined,
          reserved: policy.reservedHooks.some((r) => r.owner === h.owner),
          // Grants not listed yet: the squatting check guards what the policy names.
          granted: granted?.has(h.owner) ?? false,
        })
      )
        out.add(h.owner);
  if (input.operation !== 'UPDATE' || input.oldObject === null) return [...out];
  // A Machine's removals are owner-only-removal's; a template's are template-hook-removed's, quiet for the owner.
  const removals = carrier.live ? guarding : policy.enforcement['template-hook-removed'] !== 'off' && !breakGlass;
  if (!removals) return [...out];
  const { hooks } = carrier.read(input.object);
  for (const { old } of ownedChanges(policy, carrier, hooks, carrier.read(input.oldObject).hooks)) {
    const owner = old.owner;
    if (!room(owner)) continue;
    const actsFor = registeredActor(policy, user, owner);
    const asked = carrier.live
      ? rbacDecides(policy, {
          actsFor,
          breakGlass,
          registered: registeredIdentities(policy, owner) !== undefined,
          granted: granted === undefined ? undefined : granted.has(owner),
        })
      : templateRemovalRbacDecides(actsFor);
    if (asked) out.add(owner);
  }
  return [...out];
}
