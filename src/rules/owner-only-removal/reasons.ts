// A denying route's reason, as data both engines fill: the words (src/core/messages/ownership.ts), their offline
// form, and whose grant they suggest. The webhook fills the slots from what it knows of the requester and the owner;
// native mode from CEL expressions of the same (./cel-messages.ts).
import type { UserInfo } from '../../core/types.js';
import type { Policy } from '../../core/policy.js';
import type { CelSlots, Message } from '../../core/messages/message.js';
import {
  breakGlassText,
  ownerIdentitiesText,
  RBAC_ALLOWED_IDENTITIES,
  uncheckedNote,
} from '../../core/messages/ownership.js';
import { grantCommand, registeredIdentities } from '../../core/ownership.js';
import { cel, celString, USER, type Cel } from '../../core/cel/text.js';

/** What a reason may read: the requester, break-glass, who acts for the owner, and the grant to make. */
export type ReasonSlots = {
  user: string;
  breakGlass: string;
  /** The owner's registered identities, or that RBAC decides. */
  who: string;
  /** RBAC could not be asked about this owner (uncheckedNote), or ''. */
  unchecked: string;
  grant: string;
  ownerless: boolean;
  /** RBAC did not answer about the requester's access. */
  accessUnknown: boolean;
};

export interface Reason {
  message: Message<ReasonSlots>;
  /** `validate` judging with no identity (the webhook only: native mode always has the requester). */
  offline?: Message<ReasonSlots>;
  /** The requester's grant, or the owner's controller's (a grant to the requester would change nothing). */
  grant: 'requester' | 'controller';
}

/** What the webhook knows for a reason beyond the policy: who asks, for which owner, and what RBAC answered. */
export interface ReasonFacts {
  user: UserInfo;
  owner: string;
  /** `validate` without --as: a grant to the identity it judges as would change nothing (see offlineGrantFor). */
  offline: boolean;
  accessUnknown: boolean;
  adding: boolean;
}

/** The reason in the webhook's words. */
export function reasonText(reason: Reason, policy: Policy, f: ReasonFacts): string {
  const ids = registeredIdentities(policy, f.owner);
  const { username } = f.user;
  return ((f.offline ? reason.offline : undefined) ?? reason.message).toJs({
    user: username,
    breakGlass: breakGlassText(policy),
    who: ids ? ownerIdentitiesText(ids) : RBAC_ALLOWED_IDENTITIES,
    unchecked: f.accessUnknown ? uncheckedNote.toJs({ user: username, owner: f.owner, adding: f.adding }) : '',
    grant: reason.grant === 'controller' || f.offline ? grantCommand(f.owner) : grantCommand(f.owner, f.user),
    ownerless: f.owner === '',
    accessUnknown: f.accessUnknown,
  });
}

/** What native mode has for a reason's owner: CEL for who acts for it and both grants, and whether it is ''. */
export type ReasonCel = Pick<CelSlots<ReasonSlots>, 'who' | 'ownerless'> & {
  requesterGrant: Cel;
  controllerGrant: Cel;
};

/** The reason in CEL, for the requester of the request: the authorizer always answers, so nothing is unchecked. */
export function reasonCel(reason: Reason, policy: Policy, c: ReasonCel): Cel {
  return reason.message.toCel({
    user: USER,
    breakGlass: celString(breakGlassText(policy)),
    who: c.who,
    unchecked: celString(''),
    grant: reason.grant === 'controller' ? c.controllerGrant : c.requesterGrant,
    ownerless: c.ownerless,
    accessUnknown: cel`false`,
  });
}
