// Hook-owner grants listed once, through a Lister, for the commands that read the cluster once (`audit`, `explain`)
// where `serve` keeps a watch-backed index (rbac-index.ts); both feed the same OwnerGrants.
import { describeError } from '../../errors.js';
import { GRANT_COLLECTIONS, OwnerGrants } from './owner-grants.js';
import type { Lister } from './types.js';

/**
 * Every role and binding, listed once (Roles and RoleBindings of `namespace` only, when the audit is limited to it);
 * undefined (with a note) when RBAC cannot be listed.
 */
export async function listOwnerGrants(
  lister: Lister,
  notes: string[],
  namespace?: string,
): Promise<OwnerGrants | undefined> {
  const grants = new OwnerGrants();
  try {
    for (const c of GRANT_COLLECTIONS)
      for await (const page of lister.list(c.resource, c.resource.namespaced ? namespace : undefined))
        for (const obj of page) {
          if ('role' in c) grants.upsertRole(c.role, obj);
          else grants.upsertBinding(c.binding, obj);
        }
  } catch (err) {
    notes.push(`RBAC grants of hook owners could not be listed (${describeError(err)}): no owner judged unprotected`);
    return undefined;
  }
  return grants;
}
