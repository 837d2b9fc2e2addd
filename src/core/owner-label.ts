// A hook owner as a metric label value. Owners come from requests and stored objects, so a label taken as it is
// would let anyone who writes a Machine mint series without bound: only owners the policy or an RBAC grant names
// keep their name.
import type { Policy } from './policy.js';

/** The label value of every owner neither the policy nor an RBAC grant names. */
export const OTHER_OWNER = 'other';

/**
 * An owner the policy names (registry, reserved or default hooks) or an RBAC grant names (`granted`), the empty
 * owner (kcp-cleanup) as itself, else "other".
 */
export function ownerLabel(policy: Policy, owner: string, granted: boolean): string {
  if (owner === '' || granted || Object.hasOwn(policy.owners, owner)) return owner;
  const named = (h: { owner: string }): boolean => h.owner === owner;
  return policy.reservedHooks.some(named) || policy.defaultHooks.some((r) => named(r.hook)) ? owner : OTHER_OWNER;
}
