// Rule owner-only-removal: a protected owner's hook (registered in the policy, or granted through RBAC) is removed
// or re-owned only by its registered identities, identities a grant naming the owner allows, or break-glass (warned);
// wildcard RBAC rights get wildcardGrants; an unprotected owner's hook gets the policy's unverifiedRemoval outcome.
// The audit annotation says which route allowed it.
import { ownValue, quote } from '../../core/guards.js';
import { isBreakGlass, judgedOffline } from '../../core/identity.js';
import {
  grantCommand,
  grantsUnknown,
  isProtected,
  ownedChanges,
  registeredActor,
  registeredIdentities,
  type HookChange,
} from '../../core/ownership.js';
import {
  breakGlassText,
  breakGlassWarning,
  grantsUnknownReason,
  offlineOwnerOnlyReason,
  offlineUnverifiedDenyReason,
  ownerIdentitiesText,
  ownerOnlyReason,
  RBAC_ALLOWED_IDENTITIES,
  removalDenialMessage,
  uncheckedNote,
  unverifiedDenyReason,
  unverifiedFix,
  unverifiedWarning,
  wildcardReason,
  wildcardWarning,
} from '../../core/messages/ownership.js';
import { mirroredRemovals, twinJudgedOnCreate } from '../../core/migration.js';
import type { Notice, UserInfo, Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { nativeOwnerOnlyRemoval } from './cel.js';
import { ownerAdditions } from './additions.js';
import { strictOwners } from './strict-owners.js';
import { twinCreate } from './twin-create.js';
import { ownerOnlyRemovalDivergences } from './divergences.js';

export const AUDIT_KEY_BREAK_GLASS = 'break-glass-hook-removal';
/** A removal allowed because the user acts for the owner (route registry or rbac): audit annotation only. */
export const AUDIT_KEY_REMOVAL = 'hook-removal';
/** A removal of an unprotected owner's hook, allowed under unverifiedRemoval: warn. */
export const AUDIT_KEY_UNVERIFIED = 'unverified-hook-removal';

/** A synchronizer's removal of a hook already gone from the authoritative copy of a migrated Machine. */
export const AUDIT_KEY_MIRROR = 'hook-mirror-removal';

/** A removal allowed by wildcard RBAC rights alone, under wildcardGrants: warn. */
export const AUDIT_KEY_WILDCARD = 'wildcard-hook-removal';

/**
 * Who allowed a removal: the policy's registry, the migration's synchronizer carrying over an owner's removal from
 * the authoritative copy (src/core/migration.ts), a grant naming the owner, break-glass, wildcard RBAC rights
 * (wildcardGrants: warn), or nothing (unverifiedRemoval: warn).
 */
export type RemovalRoute = 'registry' | 'mirror' | 'rbac' | 'break-glass' | 'wildcard' | 'unverified';

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

/** A changed hook as the messages read it. */
function slots(change: HookChange, user: UserInfo) {
  const { old, now } = change;
  return {
    path: old.path,
    user: user.username,
    reowned: now !== undefined,
    stage: old.stage,
    name: old.name,
    owner: old.owner,
    ownerless: old.owner === '',
  };
}

/** The denial of a removal nothing allowed: says who may, whether RBAC could be asked, and the grant to make. */
function denial(change: HookChange, user: UserInfo, reason: string): Violation {
  const { old } = change;
  return {
    rule: 'owner-only-removal',
    path: old.path,
    message: removalDenialMessage.toJs({ ...slots(change, user), reason }),
    fix: `leave hook ${quote(old.name)} in place: ${old.owner === '' ? 'its controller' : old.owner} removes it when its work is done`,
    hook: { stage: old.stage, name: old.name, owner: old.owner },
    key: `removal:${old.stage}:${quote(old.name)}:${quote(old.owner)}`,
  };
}

export const ownerOnlyRemoval: Rule = (ctx) => {
  const { policy, input, carrier, hooks, oldHooks } = ctx;
  const added = ownerAdditions(ctx);
  const twin = twinCreate(ctx);
  const violations: Violation[] = [
    ...(policy.strictOwners ? strictOwners.validate(ctx).violations : []),
    ...added.violations,
    ...twin.violations,
  ];
  const notices: Notice[] = [...added.notices, ...twin.notices];
  // Only live carriers' hooks gate something real (a Machine's deletion, a Cluster's upgrade); templates' removals
  // are template-hook-removed's.
  if (input.operation !== 'UPDATE' || !carrier.live) return { violations, notices };

  const user = input.userInfo;
  const ownership = input.context?.ownership;
  const breakGlass = breakGlassText(policy);
  const mirrored = mirroredRemovals(policy, input);
  // `validate` without --as: a grant to the identity it judges as would change nothing (see offlineGrantFor).
  const offline = judgedOffline(input);
  for (const change of ownedChanges(policy, carrier, hooks.hooks, oldHooks.hooks)) {
    const owner = change.old.owner;
    const ids = registeredIdentities(policy, owner);
    if (registeredActor(policy, user, owner)) {
      notices.push({ rule: 'owner-only-removal', audit: trace(AUDIT_KEY_REMOVAL, change, user, 'registry') });
      continue;
    }
    // The owner already removed it on the authoritative copy: this is that removal, carried over.
    if (mirrored?.(change)) {
      notices.push({ rule: 'owner-only-removal', audit: trace(AUDIT_KEY_MIRROR, change, user, 'mirror') });
      continue;
    }
    if (isBreakGlass(user, policy)) {
      notices.push({
        rule: 'owner-only-removal',
        warning: breakGlassWarning.toJs(slots(change, user)),
        audit: trace(AUDIT_KEY_BREAK_GLASS, change, user, 'break-glass'),
        breakGlass: { action: 'hook-removal', owners: [owner] },
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
      notices.push({
        rule: 'owner-only-removal',
        warning: wildcardWarning.toJs(slots(change, user)),
        audit: trace(AUDIT_KEY_WILDCARD, change, user, 'wildcard'),
      });
      continue;
    }
    // Built only for a denial: a request may remove 100,000 hooks under warn.
    const reasonSlots = () => ({
      user: user.username,
      breakGlass,
      unchecked: access === 'unknown' ? uncheckedNote.toJs({ user: user.username, owner, adding: false }) : '',
      grant: offline ? grantCommand(owner) : grantCommand(owner, user),
      ownerless: owner === '',
    });
    if (
      wildcard &&
      (policy.unverifiedRemoval === 'deny' || isProtected(policy, ownership, owner) || grantsUnknown(ownership, owner))
    ) {
      const reason = wildcardReason.toJs({ user: user.username, breakGlass, grant: grantCommand(owner) });
      violations.push(denial(change, user, reason));
      continue;
    }
    if (isProtected(policy, ownership, owner)) {
      const who = ids ? ownerIdentitiesText(ids) : RBAC_ALLOWED_IDENTITIES;
      const reason = offline ? offlineOwnerOnlyReason : ownerOnlyReason;
      violations.push(denial(change, user, reason.toJs({ ...reasonSlots(), who })));
      continue;
    }
    // RBAC consulted, its grants not listed: the owner may be protected, so no unverifiedRemoval outcome applies.
    // When the user's access went unanswered too, one sentence says both (not "could not be checked" twice).
    if (grantsUnknown(ownership, owner)) {
      violations.push(
        denial(change, user, grantsUnknownReason.toJs({ ...reasonSlots(), accessUnknown: access === 'unknown' })),
      );
      continue;
    }
    if (policy.unverifiedRemoval === 'allow') continue;
    if (policy.unverifiedRemoval === 'warn') {
      notices.push({
        rule: 'owner-only-removal',
        warning: unverifiedWarning.toJs(slots(change, user)),
        audit: trace(AUDIT_KEY_UNVERIFIED, change, user, 'unverified'),
        unverifiedOwner: owner,
        hook: { stage: change.old.stage, name: change.old.name, owner },
        path: change.old.path,
        fix: unverifiedFix.toJs({ owner, grant: grantCommand(owner), ownerless: owner === '' }),
      });
      continue;
    }
    violations.push(
      denial(change, user, (offline ? offlineUnverifiedDenyReason : unverifiedDenyReason).toJs(reasonSlots())),
    );
  }
  return { violations, notices };
};

export const ownerOnlyRemovalRule: CarrierRuleModule<'owner-only-removal'> = {
  id: 'owner-only-removal',
  order: 40,
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  // Who asks matters only for hooks the update removes, re-owns or adds; strictOwners judges hooks a CREATE adds,
  // and squatting a template's CREATE (owner-additions.ts).
  updateReads: () => ({ parts: ['hooks'] }),
  // A Machine CREATE in a migration namespace is judged against its twin (twin-create.ts), hooks or none.
  createReads: (policy, carrier) => ({
    parts: [
      ...(policy.strictOwners || !carrier.live ? (['hooks'] as const) : []),
      ...(carrier.live && twinJudgedOnCreate(policy, carrier) ? (['twin'] as const) : []),
    ],
  }),
  facts: ['ownership', 'twin'],
  summary:
    "only an identity registered for a hook's owner or allowed by RBAC (or break-glass, audited) removes, re-owns or adds a protected owner's hook; others get unverifiedRemoval for an unprotected one's removal",
  validate: ownerOnlyRemoval,
  native: { validating: nativeOwnerOnlyRemoval, readsNameIndex: true, divergences: ownerOnlyRemovalDivergences },
};
