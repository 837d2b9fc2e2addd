// The requesters owner-only-removal's route tests walk (removals and additions alike): who asks, and what RBAC
// answers for them about an owner, as the webhook's fact and as CEL's authorizer.
import type { OwnerAccess, UserInfo } from '../../src/core/types.js';
import type { AuthzQuestion } from '../native/evaluator/cel.js';
import { USERS } from '../fixtures/openshift.js';

export type Rbac = 'none' | 'named' | 'wildcard';

export const BACKUP_BOT: UserInfo = { username: 'backup-bot', groups: ['system:authenticated'] };
export const ERIN: UserInfo = { username: 'erin', groups: ['system:authenticated'] };

/** Who asks, and what RBAC answers for them about an owner (the wildcard probe included). */
export const REQUESTERS: ReadonlyArray<{ name: string; user: UserInfo; rbac: Rbac }> = [
  { name: 'a registered identity', user: BACKUP_BOT, rbac: 'none' },
  { name: 'break-glass', user: USERS.admin, rbac: 'none' },
  { name: 'a grant naming the owner', user: ERIN, rbac: 'named' },
  { name: 'wildcard rights', user: ERIN, rbac: 'wildcard' },
  { name: 'nobody', user: ERIN, rbac: 'none' },
];

/** RBAC's answer as the webhook's ownership fact gives it, for an owner the transport asks about. */
export function accessOf(rbac: Rbac): OwnerAccess {
  return rbac === 'named' ? 'allowed' : rbac === 'wildcard' ? 'wildcard' : 'denied';
}

/** The same answer as CEL's authorizer gives it. */
export function authorize(owner: string, rbac: Rbac): (q: AuthzQuestion) => boolean {
  return (q) => q.resource === 'hookowners' && (rbac === 'wildcard' || (rbac === 'named' && q.name === owner));
}
