// Rule unprotected-owner (audit): a Machine's hook whose owner nobody can act for (no registered identity, no RBAC
// grant), so the team knows which grants to add before switching unverifiedRemoval to deny.
import { wellFormed } from '../../core/carriers.js';
import { quote } from '../../core/guards.js';
import { grantCommand, HOOKOWNERS, registeredIdentities } from '../../core/ownership.js';
import { describeIdentities } from '../../core/policy.js';
import { IMPLIED_OWNER_NOTE, withImpliedOwner } from '../../core/implied-owner.js';
import type { Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';

export const unprotectedOwner: Rule = ({ policy, input, carrier, hooks: reading }) => {
  // Without the RBAC index (the audit did not look grants up), no owner is judged unprotected.
  const ownership = input.context?.ownership;
  // Grants not listed: an owner missing from them may be protected, so none is judged unprotected either.
  if (!ownership?.grantsKnown || !carrier.live) return { violations: [] };
  const violations: Violation[] = [];
  for (const written of wellFormed(reading.hooks)) {
    // An empty value stands for the owner the policy implies for its key (kcp-cleanup under the Cluster API profile);
    // with none implied it has no name to register or grant: nothing to add, so not reported.
    const h = withImpliedOwner(policy, carrier, written);
    if (h.owner === '' || ownership.granted.has(h.owner)) continue;
    const ids = registeredIdentities(policy, h.owner);
    if (ids && describeIdentities(ids).length > 0) continue;
    violations.push({
      rule: 'unprotected-owner',
      path: h.path,
      message:
        `${h.stage} hook ${quote(h.name)} is owned by ${quote(h.owner)}${h === written ? '' : IMPLIED_OWNER_NOTE}, ` +
        `which no identity can act for: ` +
        `${ids ? 'its registry entry lists no identity' : 'it is not registered in the policy'} and no RBAC grant of ` +
        `${HOOKOWNERS.verb} on ${HOOKOWNERS.resource}.${HOOKOWNERS.group} names it`,
      fix:
        `grant it to the controller that owns the hook: ${grantCommand(h.owner)}` +
        (policy.unverifiedRemoval === 'deny' ? '' : ' (before setting unverifiedRemoval: deny)'),
      hook: { stage: h.stage, name: h.name, owner: h.owner },
      key: `unprotected:${h.stage}:${quote(h.name)}:${quote(h.owner)}`,
    });
  }
  return { violations };
};

export const unprotectedOwnerRule: CarrierRuleModule<'unprotected-owner'> = {
  id: 'unprotected-owner',
  order: 190,
  enforcement: 'warn',
  ratchets: false,
  sources: ['audit'],
  selects: 'carriers',
  facts: ['ownership'],
  summary: 'a Machine hook whose owner no identity can act for: not registered with an identity, no RBAC grant',
  validate: unprotectedOwner,
};
