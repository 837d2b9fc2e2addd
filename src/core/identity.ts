// Does a requesting user act for a hook owner, or hold break-glass? Pure matching on userInfo.
import type { OwnerIdentities, Policy } from './policy.js';
import { serviceAccountUsername } from './policy.js';
import type { UserInfo } from './types.js';

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
