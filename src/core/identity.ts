// Does a requesting user act for a hook owner, or hold break-glass? Pure matching on userInfo.
import type { OwnerIdentities, Policy } from './policy.js';
import { serviceAccountUsername } from './policy.js';
import type { UserInfo } from './types.js';

/**
 * Who `validate` judges a change as when --as is not given: a user no policy registers, so removals are checked. Its
 * denials suggest --as rather than a grant to this name, which would change nothing; given --as, validate words a
 * denial as the webhook does for that user.
 */
export const OFFLINE_USERNAME = 'hookkeeper-validate';

/** A `validate` review judged as OFFLINE_USERNAME: RBAC is not visible, and the identity is nobody's. */
export function judgedOffline(input: { source?: string; userInfo: UserInfo }): boolean {
  return input.source === 'validate' && input.userInfo.username === OFFLINE_USERNAME;
}

export function actsFor(user: UserInfo, ids: OwnerIdentities): boolean {
  if (ids.users.includes(user.username)) return true;
  if (ids.serviceAccounts.some((sa) => serviceAccountUsername(sa) === user.username)) return true;
  return user.groups.some((g) => ids.groups.includes(g));
}

export function isBreakGlass(user: UserInfo, policy: Policy): boolean {
  return (
    policy.breakGlass.users.includes(user.username) || user.groups.some((g) => policy.breakGlass.groups.includes(g))
  );
}
