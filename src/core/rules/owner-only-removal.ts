// Rule owner-only-removal: a protected owner's hook (registered in the policy, or granted through RBAC) is removed
// or re-owned only by its registered identities, identities a grant naming the owner allows, or break-glass (warned);
// wildcard RBAC rights get wildcardGrants; an unprotected owner's hook gets the policy's unverifiedRemoval outcome.
// The audit annotation says which route allowed it.
import { forbidden, invalid } from '../field-errors.js';
import { ownValue, quote } from '../guards.js';
import { actsFor, isBreakGlass } from '../identity.js';
import {
  addedHooks,
  changedHooks,
  grantCommand,
  grantShort,
  grantsUnknown,
  HOOKOWNERS,
  isProtected,
  registeredIdentities,
  WILDCARD_WARNING_HEAD,
  wildcardDenialWords,
  type HookChange,
} from '../ownership.js';
import { describeIdentities, type Policy } from '../policy.js';
import type { Notice, UserInfo, Violation } from '../types.js';
import type { CarrierRuleModule, Rule } from './context.js';
import { nativeOwnerOnlyRemoval } from '../cel/owner-only-removal.js';

export const AUDIT_KEY_BREAK_GLASS = 'break-glass-hook-removal';
/** A removal allowed because the user acts for the owner (route registry or rbac): audit annotation only. */
export const AUDIT_KEY_REMOVAL = 'hook-removal';
/** A removal of an unprotected owner's hook, allowed under unverifiedRemoval: warn. */
export const AUDIT_KEY_UNVERIFIED = 'unverified-hook-removal';

/** A removal allowed by wildcard RBAC rights alone, under wildcardGrants: warn. */
export const AUDIT_KEY_WILDCARD = 'wildcard-hook-removal';

/**
 * Who allowed a removal: the policy's registry, a grant naming the owner, break-glass, wildcard RBAC rights
 * (wildcardGrants: warn), or nothing (unverifiedRemoval: warn).
 */
export type RemovalRoute = 'registry' | 'rbac' | 'break-glass' | 'wildcard' | 'unverified';

function trace(key: string, change: HookChange, user: UserInfo, route: RemovalRoute): Notice['audit'] {
  const { old, now } = change;
  return {
    key,
    value: JSON.stringify({
      stage: old.stage,
      hook: old.name,
      owner: old.owner,
      user: user.username,
      action: now ? 'owner-change' : 'removal',
      route,
    }),
  };
}

function breakGlassText(policy: Policy): string {
  const glass = [...policy.breakGlass.users, ...policy.breakGlass.groups.map((g) => `group ${g}`)];
  return glass.length > 0 ? `break-glass: ${glass.join(', ')}` : 'no break-glass identity is configured';
}

/** The denial of a removal nothing allowed: says who may, whether RBAC could be asked, and the grant to make. */
function denial(change: HookChange, user: UserInfo, why: string): Violation {
  const { old, now } = change;
  const verb = now ? 'change the owner of' : 'remove';
  return {
    rule: 'owner-only-removal',
    path: old.path,
    message: forbidden(
      old.path,
      `${quote(user.username)} may not ${verb} ${old.stage} hook ${quote(old.name)} ` +
        (old.owner === '' ? 'which has no owner' : `owned by ${quote(old.owner)}`) +
        `; ${why}`,
    ).message,
    fix: `leave hook ${quote(old.name)} in place: ${old.owner === '' ? 'its controller' : old.owner} removes it when its work is done`,
    hook: { stage: old.stage, name: old.name, owner: old.owner },
    key: `removal:${old.stage}:${quote(old.name)}:${quote(old.owner)}`,
  };
}

/** The denial of a removal only wildcard RBAC rights allowed: they are not ownership; break-glass or a named grant is. */
function wildcardDenial(change: HookChange, user: UserInfo, policy: Policy): Violation {
  const why = `RBAC lets ${quote(user.username)}${wildcardDenialWords(breakGlassText(policy))}`;
  return denial(change, user, `${why}${grantCommand(change.old.owner)}`);
}

/**
 * The unverifiedRemoval: warn warning, within a warning's 120 characters for everyday names. The requester reads it,
 * so the user comes last: a long service account name is what the answer's cut takes (the audit annotation has it).
 */
function unverifiedWarning(change: HookChange, user: UserInfo): string {
  const { old, now } = change;
  const by = `${now ? 're-owned ' : ''}by ${user.username}`;
  return old.owner === ''
    ? `unverified: hook ${old.name} has no owner to grant; ${by}`
    : `unverified: hook ${old.name} of ${old.owner}; grant ${grantShort(old.owner)}; ${by}`;
}

/** Every hook added with an owner nobody registered or granted: refused under strictOwners. */
function strictOwnerViolations(ctx: Parameters<Rule>[0]): Violation[] {
  const { policy, input, hooks, oldHooks } = ctx;
  const ownership = input.context?.ownership;
  const out: Violation[] = [];
  for (const h of addedHooks(hooks.hooks, oldHooks.hooks)) {
    if (isProtected(policy, ownership, h.owner)) continue;
    out.push({
      rule: 'owner-only-removal',
      path: h.ownerPath,
      message: invalid(
        h.ownerPath,
        h.owner,
        `owner of hook ${quote(h.name)} is not registered in the policy and strictOwners is on` +
          (h.owner === ''
            ? ''
            : `, and no RBAC grant of ${HOOKOWNERS.verb} on ${HOOKOWNERS.resource}.${HOOKOWNERS.group} names it` +
              (ownership
                ? ownership.grantsKnown
                  ? ''
                  : ' (the RBAC grants are not listed yet)'
                : ' (RBAC not consulted)')),
      ).message,
      fix:
        h.owner === ''
          ? 'give the hook an owner that is registered or granted'
          : `register owner ${quote(h.owner)} under "owners" in the hookkeeper policy, grant it (${grantCommand(h.owner)}), or use a registered owner`,
      hook: { stage: h.stage, name: h.name, owner: h.owner },
      key: `unregistered:${h.stage}:${quote(h.name)}:${quote(h.owner)}`,
    });
  }
  return out;
}

export const ownerOnlyRemoval: Rule = (ctx) => {
  const { policy, input, carrier, hooks, oldHooks } = ctx;
  const violations: Violation[] = policy.strictOwners ? strictOwnerViolations(ctx) : [];
  const notices: Notice[] = [];
  // Only Machines' hooks gate a real deletion; templates' hooks are never removed from a deleting object.
  if (input.operation !== 'UPDATE' || !carrier.live) return { violations, notices };

  const user = input.userInfo;
  const ownership = input.context?.ownership;
  for (const change of changedHooks(hooks.hooks, oldHooks.hooks)) {
    const { old, now } = change;
    const owner = old.owner;
    const ids = registeredIdentities(policy, owner);
    if (ids && actsFor(user, ids)) {
      notices.push({ rule: 'owner-only-removal', audit: trace(AUDIT_KEY_REMOVAL, change, user, 'registry') });
      continue;
    }
    if (isBreakGlass(user, policy)) {
      const verb = now ? 'change the owner of' : 'remove';
      notices.push({
        rule: 'owner-only-removal',
        warning: `break-glass: ${user.username} may ${verb} ${old.stage} hook ${old.name} of ${owner}; audited`,
        audit: trace(AUDIT_KEY_BREAK_GLASS, change, user, 'break-glass'),
      });
      continue;
    }
    // Absent fact: RBAC was not consulted. Fact present but owner not asked about: treated as not checkable.
    const access = owner === '' || !ownership ? undefined : (ownValue(ownership.access, owner) ?? 'unknown');
    if (access === 'allowed') {
      notices.push({ rule: 'owner-only-removal', audit: trace(AUDIT_KEY_REMOVAL, change, user, 'rbac') });
      continue;
    }
    // Rights over every owner name: not ownership. Under warn they pass, audited as break-glass is; under deny they
    // count as no answer of RBAC's, and any denial below says so.
    const wildcard = access === 'wildcard';
    if (wildcard && policy.wildcardGrants === 'warn') {
      const verb = now ? 'change the owner of' : 'remove';
      notices.push({
        rule: 'owner-only-removal',
        warning: `${WILDCARD_WARNING_HEAD}${user.username} may ${verb} ${old.stage} hook ${old.name} of ${owner}; audited`,
        audit: trace(AUDIT_KEY_WILDCARD, change, user, 'wildcard'),
      });
      continue;
    }
    const unchecked =
      access === 'unknown'
        ? `whether RBAC lets ${quote(user.username)} act for ${quote(owner)} could not be checked, so the removal is not allowed; `
        : '';
    // Built only for a denial: a request may remove 100,000 hooks under warn.
    const grant = (): string => `to let ${quote(user.username)} act for it: ${grantCommand(owner, user)}`;
    if (
      wildcard &&
      (policy.unverifiedRemoval === 'deny' || isProtected(policy, ownership, owner) || grantsUnknown(ownership, owner))
    ) {
      violations.push(wildcardDenial(change, user, policy));
      continue;
    }
    if (isProtected(policy, ownership, owner)) {
      const who = ids ? describeIdentities(ids).join(', ') || '(no identity registered)' : 'whom RBAC allows';
      violations.push(
        denial(change, user, `only its owner may: ${who} (${breakGlassText(policy)}); ${unchecked}${grant()}`),
      );
      continue;
    }
    // RBAC consulted, its grants not listed: the owner may be protected, so no unverifiedRemoval outcome applies.
    // When the user's access went unanswered too, one sentence says both (not "could not be checked" twice).
    if (grantsUnknown(ownership, owner)) {
      const what =
        access === 'unknown'
          ? `whether an RBAC grant protects it (hookkeeper has not listed the cluster's RBAC) or lets ${quote(user.username)} act for it could not be checked`
          : `whether an RBAC grant protects it could not be checked (hookkeeper has not listed the cluster's RBAC)`;
      violations.push(
        denial(
          change,
          user,
          `no identity is registered for that owner, and ${what}, so the removal is not allowed (${breakGlassText(policy)}); ${grant()}`,
        ),
      );
      continue;
    }
    if (policy.unverifiedRemoval === 'allow') continue;
    if (policy.unverifiedRemoval === 'warn') {
      notices.push({
        rule: 'owner-only-removal',
        warning: unverifiedWarning(change, user),
        audit: trace(AUDIT_KEY_UNVERIFIED, change, user, 'unverified'),
        unverifiedOwner: owner,
        hook: { stage: old.stage, name: old.name, owner },
        path: old.path,
      });
      continue;
    }
    violations.push(
      denial(
        change,
        user,
        owner === ''
          ? `no grant can name an empty owner and unverifiedRemoval is deny, so only break-glass may (${breakGlassText(policy)})`
          : `no identity is registered or granted for that owner and unverifiedRemoval is deny (${breakGlassText(policy)}); ${unchecked}${grant()}`,
      ),
    );
  }
  return { violations, notices };
};

export const ownerOnlyRemovalRule: CarrierRuleModule<'owner-only-removal'> = {
  id: 'owner-only-removal',
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  // Who asks matters only for hooks the update removes or re-owns; strictOwners judges only hooks it adds.
  updateReads: () => ({ parts: ['hooks'] }),
  facts: ['ownership'],
  summary:
    "only an identity registered for a hook's owner or allowed by RBAC (or break-glass, audited) removes or re-owns a protected owner's hook; others get unverifiedRemoval",
  validate: ownerOnlyRemoval,
  native: { validating: nativeOwnerOnlyRemoval },
};
