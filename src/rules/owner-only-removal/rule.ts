// Rule owner-only-removal: a protected owner's hook (registered in the policy, or granted through RBAC) is removed
// or re-owned only by its registered identities, identities a grant naming the owner allows, or break-glass (warned);
// wildcard RBAC rights get wildcardGrants; an unprotected owner's hook gets the policy's unverifiedRemoval outcome.
// The audit annotation says which route allowed it; the routes, in order, are ./routes.ts's.
import { quote } from '../../core/guards.js';
import { judgedOffline } from '../../core/identity.js';
import { grantCommand, ownedChanges, type HookChange } from '../../core/ownership.js';
import { removalDenialMessage, unverifiedFix } from '../../core/messages/ownership.js';
import { mirroredRemovals, twinJudgedOnCreate } from '../../core/migration.js';
import type { Notice, UserInfo, Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { nativeOwnerOnlyRemoval } from './cel.js';
import { ownerAdditions } from './additions.js';
import { strictOwners } from './strict-owners.js';
import { twinCreate } from './twin-create.js';
import { ownerOnlyRemovalDivergences } from './divergences.js';
import { reasonText } from './reasons.js';
import {
  AUDIT_KEY_BREAK_GLASS,
  AUDIT_KEY_MIRROR,
  AUDIT_KEY_REMOVAL,
  AUDIT_KEY_UNVERIFIED,
  AUDIT_KEY_WILDCARD,
  RemovalEnv,
  removalRoutes,
  type RemovalRouteName,
} from './routes.js';
import { routeFor } from './route-list.js';

export { AUDIT_KEY_BREAK_GLASS, AUDIT_KEY_MIRROR, AUDIT_KEY_REMOVAL, AUDIT_KEY_UNVERIFIED, AUDIT_KEY_WILDCARD };

/** Who allowed a removal, as the audit annotation names it: the route taken (./routes.ts). */
export type RemovalRoute = RemovalRouteName;

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

  const changes = ownedChanges(policy, carrier, hooks.hooks, oldHooks.hooks);
  if (changes.length === 0) return { violations, notices };
  const user = input.userInfo;
  // `validate` without --as: a grant to the identity it judges as would change nothing (see offlineGrantFor).
  const offline = judgedOffline(input);
  const routes = removalRoutes(policy);
  const env = new RemovalEnv(policy, input, mirroredRemovals(policy, input));
  for (const change of changes) {
    env.enter(change);
    const route = routeFor(routes, env);
    const owner = change.old.owner;
    if (route.outcome === 'deny') {
      // Built only for a denial: a request may remove 100,000 hooks under warn.
      const access = env.access;
      const reason = reasonText(route.reason, policy, {
        user,
        owner,
        offline,
        accessUnknown: access === 'unknown',
        adding: false,
      });
      violations.push(denial(change, user, reason));
      continue;
    }
    if (route.audit === undefined) continue;
    const notice: Notice = {
      rule: 'owner-only-removal',
      ...(route.outcome !== 'allow' ? { warning: route.warning.toJs(slots(change, user)) } : {}),
      audit: trace(route.audit, change, user, route.name),
    };
    if (route.outcome === 'breakGlass') notice.breakGlass = { action: 'hook-removal', owners: [owner] };
    else if (route.name === 'unverified') {
      notice.unverifiedOwner = owner;
      notice.hook = { stage: change.old.stage, name: change.old.name, owner };
      notice.path = change.old.path;
      notice.fix = unverifiedFix.toJs({ owner, grant: grantCommand(owner), ownerless: owner === '' });
    }
    notices.push(notice);
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
  // and squatting a template's CREATE (./additions.ts).
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
  native: {
    validating: nativeOwnerOnlyRemoval,
    readsNameIndex: true,
    divergences: ownerOnlyRemovalDivergences,
  },
};
