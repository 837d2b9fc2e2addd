// owner-only-removal's addition routes (src/rules/owner-only-removal/addition-routes.ts) against the native policies
// they are compiled into, in process: for each wildcardGrants, each kind of owner and of requester, the route the
// webhook takes for a hook added under that owner's name gives the outcome the rendered CEL reaches, in the words the
// route declares; where a webhook-only input (a grant listing) decides, a declared divergence covers the review.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { judgedAdditions } from '../../src/core/ownership.js';
import { carrierFor } from '../../src/core/carriers.js';
import type { Policy } from '../../src/core/policy.js';
import type { Ownership, ReviewInput, UserInfo } from '../../src/core/types.js';
import { ownersToCheck } from '../../src/rules/owner-only-removal/owners-to-check.js';
import { AdditionEnv, additionRoutes, type AdditionRoute } from '../../src/rules/owner-only-removal/addition-routes.js';
import { routeFor } from '../../src/rules/owner-only-removal/route-list.js';
import { ownerOnlyRemovalRule } from '../../src/rules/owner-only-removal/rule.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { admit, compilePolicies } from '../native/evaluator/admission.js';
import { reviewInput } from '../fixtures/input.js';
import { accessOf, authorize, BACKUP_BOT, ERIN, REQUESTERS, type Rbac } from '../helpers/owner-requesters.js';
import { machine, USERS } from '../fixtures/openshift.js';

const OWNERS = {
  registered: 'team/backup',
  reserved: 'team/reserved',
  'granted only': 'team/granted',
  unguarded: 'team/storage',
  ownerless: '',
} as const;

function policyWith(wildcardGrants: Policy['wildcardGrants']): Policy {
  const base = structuredClone(DEFAULT_POLICY);
  return {
    ...base,
    owners: { ...base.owners, [OWNERS.registered]: { users: [BACKUP_BOT.username], groups: [], serviceAccounts: [] } },
    reservedHooks: [...base.reservedHooks, { name: 'ReservedQuiesce', owner: OWNERS.reserved }],
    wildcardGrants,
  };
}

/** An UPDATE of a worker Machine adding one hook under `owner`'s name. */
function addition(owner: string, user: UserInfo): ReviewInput {
  const worker = { name: 'ci-ln-7x2k9-worker-a', role: 'worker' } as const;
  return reviewInput({
    operation: 'UPDATE',
    object: machine({ ...worker, preDrain: [{ name: 'BackupQuiesce', owner }], resourceVersion: '48300' }),
    oldObject: machine({ ...worker, preDrain: [] }),
    user,
  });
}

/** The webhook's facts: grants listed (naming the granted-only owner), RBAC's answer for the owners it asks about. */
function facts(policy: Policy, input: ReviewInput, rbac: Rbac): Ownership {
  const access = accessOf(rbac);
  const granted = new Set<string>([OWNERS['granted only']]);
  const asked = ownersToCheck(policy, input, granted);
  return { granted, grantsKnown: true, access: Object.fromEntries(asked.map((o) => [o, access])) };
}

function routeOf(policy: Policy, input: ReviewInput): AdditionRoute {
  const carrier = carrierFor(input.kind);
  assert.ok(carrier);
  const [hook] = judgedAdditions(policy, input, carrier);
  assert.ok(hook);
  const env = new AdditionEnv(policy, input, undefined);
  env.enter(hook);
  return routeFor(additionRoutes(policy), env);
}

/** A denial up to its last clause: the hook, and the reason but for the grant (which CEL words only for some). */
const beforeGrant = (m: string | undefined) => m?.slice(0, m.lastIndexOf('; '));

describe('the addition routes and the CEL compiled from them: the same outcome, in the route’s words', () => {
  for (const wildcardGrants of ['warn', 'deny'] as const) {
    test(`wildcardGrants: ${wildcardGrants}`, () => {
      const policy = policyWith(wildcardGrants);
      const compiled = compilePolicies(renderNativePolicies(policy, { k8sVersion: '1.36' }).objects);
      const form = ownerOnlyRemovalRule.native;
      const divergences = form && 'divergences' in form ? (form.divergences?.(policy) ?? []) : [];
      const seen = new Set<string>();
      for (const [kind, owner] of Object.entries(OWNERS))
        for (const r of REQUESTERS) {
          const where = `${kind} owner, ${r.name}`;
          const bare = addition(owner, r.user);
          const input = { ...bare, context: { ownership: facts(policy, bare, r.rbac) } };
          const route = routeOf(policy, input);
          seen.add(route.name);
          const native = admit(compiled, bare, { authorize: authorize(owner, r.rbac) });
          const webhook = evaluate(policy, input);
          // Other rules judge an ownerless hook too: the rule's own denials.
          const denials = webhook.denials.filter((d) => d.rule === 'owner-only-removal');
          const nativeDenies = native.denial?.rule === 'owner-only-removal';
          assert.equal(denials.length > 0, route.outcome === 'deny', `${where}: route ${route.name}`);
          if (kind === 'granted only') {
            // CEL cannot list grants: the owner is unguarded there, and a declared divergence says so.
            assert.equal(nativeDenies, false, where);
            if (route.outcome !== 'allow')
              assert.ok(
                divergences.some((d) => d.verdictDiffers?.(input)),
                `${where}: route ${route.name}, no divergence`,
              );
            continue;
          }
          assert.equal(nativeDenies, denials.length > 0, `${where}: route ${route.name}`);
          const warned = webhook.notices.filter((n) => n.rule === 'owner-only-removal' && n.warning);
          if (route.outcome === 'deny') {
            const words = denials.map((d) => beforeGrant(d.message));
            assert.ok(words.includes(beforeGrant(native.denial?.message)), `${where}: ${native.denial?.message}`);
            continue;
          }
          assert.equal(warned.length, route.outcome === 'allow' ? 0 : 1, `${where}: route ${route.name}`);
          assert.deepEqual(
            native.warnings.filter((x) => x.rule === 'owner-only-removal').map((x) => x.message),
            warned.map((n) => n.warning),
            `${where}: route ${route.name}`,
          );
          if (route.outcome !== 'allow') {
            const slots = { user: r.user.username, stage: 'preDrain', name: 'BackupQuiesce', owner };
            assert.equal(warned[0]?.warning, route.warning.toJs(slots), where);
          }
        }
      const expected = ['unguarded', 'registry', 'break-glass', 'rbac', 'squat'];
      expected.push(wildcardGrants === 'warn' ? 'wildcard' : 'wildcard-denied');
      assert.deepEqual([...seen].sort(), expected.sort());
    });
  }
});

describe('which owners RBAC is asked about for an addition: where its answer can change the route', () => {
  test('a guarded owner, unless the registry or break-glass settles it; never an unguarded one', () => {
    const policy = policyWith('deny');
    const asked = (owner: string, user: UserInfo) => ownersToCheck(policy, addition(owner, user), new Set());
    assert.deepEqual(asked(OWNERS.registered, ERIN), [OWNERS.registered]);
    assert.deepEqual(asked(OWNERS.reserved, ERIN), [OWNERS.reserved]);
    assert.deepEqual(asked(OWNERS.registered, BACKUP_BOT), []);
    assert.deepEqual(asked(OWNERS.registered, USERS.admin), []);
    assert.deepEqual(asked(OWNERS.unguarded, ERIN), []);
    const granted = ownersToCheck(policy, addition(OWNERS['granted only'], ERIN), new Set([OWNERS['granted only']]));
    assert.deepEqual(granted, [OWNERS['granted only']]);
  });
});
