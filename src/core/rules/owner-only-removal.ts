// Rule owner-only-removal: a hook that disappears, or changes owner, must be removed by an identity
// registered for its owner; break-glass identities may do it too, with a warning and an audit annotation.
import { wellFormed, type Hook } from '../carriers.js';
import { forbidden, invalid } from '../field-errors.js';
import { quote } from '../guards.js';
import { actsFor, isBreakGlass } from '../identity.js';
import { describeIdentities } from '../policy.js';
import type { Notice, Violation } from '../types.js';
import type { CarrierRuleModule, Rule } from './context.js';

export const AUDIT_KEY_BREAK_GLASS = 'break-glass-hook-removal';

function byStageAndName(hooks: readonly Hook[]): Map<string, Hook> {
  const map = new Map<string, Hook>();
  for (const h of hooks) {
    const key = `${h.stage}\u0000${h.name}`;
    if (!map.has(key)) map.set(key, h);
  }
  return map;
}

export const ownerOnlyRemoval: Rule = ({ policy, input, carrier, hooks, oldHooks }) => {
  const violations: Violation[] = [];
  const notices: Notice[] = [];
  const user = input.userInfo;

  if (policy.strictOwners) {
    // Strict mode: every hook must have a registered owner, so every removal is identity-checked.
    const before = new Set(wellFormed(oldHooks.hooks).map((h) => `${h.stage}\u0000${h.name}\u0000${h.owner}`));
    for (const h of wellFormed(hooks.hooks)) {
      if (before.has(`${h.stage}\u0000${h.name}\u0000${h.owner}`) || Object.hasOwn(policy.owners, h.owner)) continue;
      violations.push({
        rule: 'owner-only-removal',
        path: h.ownerPath,
        message: invalid(
          h.ownerPath,
          h.owner,
          `owner of hook ${quote(h.name)} is not registered in the policy and strictOwners is on`,
        ).message,
        fix: `register owner ${quote(h.owner)} under "owners" in the hookkeeper policy, or use a registered owner`,
        hook: { stage: h.stage, name: h.name, owner: h.owner },
        key: `unregistered:${h.stage}:${quote(h.name)}:${quote(h.owner)}`,
      });
    }
  }

  if (input.operation !== 'UPDATE' || !carrier.live) return { violations, notices };

  const after = byStageAndName(wellFormed(hooks.hooks));
  const glass = [...policy.breakGlass.users, ...policy.breakGlass.groups.map((g) => `group ${g}`)];
  for (const old of byStageAndName(wellFormed(oldHooks.hooks)).values()) {
    const now = after.get(`${old.stage}\u0000${old.name}`);
    if (now && now.owner === old.owner) continue;
    const ids = Object.hasOwn(policy.owners, old.owner) ? policy.owners[old.owner] : undefined;
    if (!ids || actsFor(user, ids)) continue;

    const verb = now ? 'change the owner of' : 'remove';
    const hookRef = { stage: old.stage, name: old.name, owner: old.owner };
    if (isBreakGlass(user, policy)) {
      notices.push({
        rule: 'owner-only-removal',
        warning: `break-glass: ${user.username} may ${verb} ${old.stage} hook ${old.name} of ${old.owner}; audited`,
        audit: {
          key: AUDIT_KEY_BREAK_GLASS,
          value: JSON.stringify({
            stage: old.stage,
            hook: old.name,
            owner: old.owner,
            user: user.username,
            action: now ? 'owner-change' : 'removal',
          }),
        },
      });
      continue;
    }
    const allowed = [...describeIdentities(ids)];
    violations.push({
      rule: 'owner-only-removal',
      path: old.path,
      message: forbidden(
        old.path,
        `${quote(user.username)} may not ${verb} ${old.stage} hook ${quote(old.name)} owned by ${quote(old.owner)}; ` +
          `only its owner may: ${allowed.join(', ') || '(no identity registered)'}` +
          (glass.length > 0 ? ` (break-glass: ${glass.join(', ')})` : ''),
      ).message,
      fix: `leave hook ${quote(old.name)} in place: ${old.owner} removes it when its work is done`,
      hook: hookRef,
      key: `removal:${old.stage}:${quote(old.name)}:${quote(old.owner)}`,
    });
  }
  return { violations, notices };
};

export const ownerOnlyRemovalRule: CarrierRuleModule<'owner-only-removal'> = {
  id: 'owner-only-removal',
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  facts: [],
  summary: "only an identity registered for a hook's owner (or break-glass, audited) removes or re-owns it",
  validate: ownerOnlyRemoval,
};
