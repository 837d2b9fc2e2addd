// Rule orphaned-owner (audit): a hook whose registered owner acts only through service accounts that no longer
// exist, so nobody can remove it. The audit looks the service accounts up and passes what it found as a fact.
import { type Hook, wellFormed } from '../../core/carriers.js';
import { quote } from '../../core/guards.js';
import { describeIdentities, type OwnerIdentities, type Policy, type ServiceAccountRef } from '../../core/policy.js';
import type { Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { breakGlassText } from '../../core/messages/ownership.js';
import { IMPLIED_OWNER_NOTE, withImpliedOwner } from '../../core/implied-owner.js';

/** The identities of a hook's owner when they are only service accounts (users and groups cannot be looked up). */
function serviceAccountOnly(policy: Policy, h: Hook): OwnerIdentities | undefined {
  const ids = Object.hasOwn(policy.owners, h.owner) ? policy.owners[h.owner] : undefined;
  return !ids || ids.serviceAccounts.length === 0 || ids.users.length > 0 || ids.groups.length > 0 ? undefined : ids;
}

/** The service accounts to look up for these hooks (implied owners in place), hook by hook: the `serviceAccounts` fact. */
export function serviceAccountRequests(policy: Policy, hooks: readonly Hook[]): ServiceAccountRef[][] {
  const out: ServiceAccountRef[][] = [];
  for (const h of hooks) {
    const ids = serviceAccountOnly(policy, h);
    if (ids) out.push([...ids.serviceAccounts]);
  }
  return out;
}

export const orphanedOwner: Rule = ({ policy, input, carrier, hooks: reading }) => {
  const found = input.context?.serviceAccounts;
  if (!found) return { violations: [] };
  const violations: Violation[] = [];
  for (const written of wellFormed(reading.hooks)) {
    // An empty value stands for the owner the policy implies for its key, as the admission rules judge it.
    const h = withImpliedOwner(policy, carrier, written);
    const ids = serviceAccountOnly(policy, h);
    if (!ids || ids.serviceAccounts.some((sa) => found[`${sa.namespace}/${sa.name}`] !== false)) continue;
    violations.push({
      rule: 'orphaned-owner',
      path: h.path,
      message: `${h.stage} hook ${quote(h.name)} is owned by ${quote(h.owner)}${h === written ? '' : IMPLIED_OWNER_NOTE}, but none of its registered service accounts exists any more: ${describeIdentities(ids).join(', ')}`,
      fix: `restore the service account, register the owner's current identity under owners[${quote(h.owner)}] in the hookkeeper policy, or remove the hook as a break-glass identity (${breakGlassText(policy)})`,
      hook: { stage: h.stage, name: h.name, owner: h.owner },
      key: `orphaned:${h.stage}:${quote(h.name)}:${quote(h.owner)}`,
    });
  }
  return { violations };
};

export const orphanedOwnerRule: CarrierRuleModule<'orphaned-owner'> = {
  id: 'orphaned-owner',
  order: 180,
  enforcement: 'deny',
  ratchets: false,
  sources: ['audit'],
  selects: 'carriers',
  facts: ['serviceAccounts'],
  summary: 'a hook whose owner acts only through service accounts that no longer exist',
  validate: orphanedOwner,
};
