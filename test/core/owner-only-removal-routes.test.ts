// owner-only-removal's route list (src/rules/owner-only-removal/routes.ts) against the native policies it is
// compiled into, in process: for every unverifiedRemoval x wildcardGrants, each kind of owner and of requester, the
// route the list takes with native mode's facts (no twin, RBAC's grants listed and naming nobody) gives the outcome
// the rendered CEL reaches, in the words the route declares. And the inputs it declares webhook-only decide the
// divergences of native mode derived from them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { ownedChanges } from '../../src/core/ownership.js';
import { ownersToCheck } from '../../src/rules/owner-only-removal/owners-to-check.js';
import type { Policy } from '../../src/core/policy.js';
import { carrierFor } from '../../src/core/carriers.js';
import {
  removalDecidedBy,
  removalRoutes,
  RemovalEnv,
  unlessRbac,
  wildcardRoute,
  WEBHOOK_ONLY,
  type RemovalOutcome,
} from '../../src/rules/owner-only-removal/routes.js';
import { routeFor } from '../../src/rules/owner-only-removal/route-list.js';
import type { Ownership, ReviewInput, UserInfo } from '../../src/core/types.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { ownerOnlyRemovalRule } from '../../src/rules/owner-only-removal/rule.js';
import { admit, compilePolicies } from '../native/evaluator/admission.js';
import { readDoc } from '../helpers/docs.js';
import { reviewInput } from '../fixtures/input.js';
import { accessOf, authorize, BACKUP_BOT, ERIN, REQUESTERS, type Rbac } from '../helpers/owner-requesters.js';
import { machine, type HookSpec } from '../fixtures/openshift.js';

const OWNERS = { registered: 'team/backup', unregistered: 'team/storage', ownerless: '' } as const;

function policyWith(unverifiedRemoval: Policy['unverifiedRemoval'], wildcardGrants: Policy['wildcardGrants']): Policy {
  const owners = {
    ...DEFAULT_POLICY.owners,
    [OWNERS.registered]: { users: [BACKUP_BOT.username], groups: [], serviceAccounts: [] },
  };
  return { ...structuredClone(DEFAULT_POLICY), owners, unverifiedRemoval, wildcardGrants };
}

function removal(owner: string, user: UserInfo): ReviewInput {
  const hook: HookSpec = { name: 'BackupFileSystem', owner };
  const worker = { name: 'ci-ln-7x2k9-worker-a', role: 'worker' } as const;
  return reviewInput({
    operation: 'UPDATE',
    object: machine({ ...worker, preDrain: [], resourceVersion: '48300' }),
    oldObject: machine({ ...worker, preDrain: [hook] }),
    user,
  });
}

/**
 * The webhook's facts as native mode has them: grants listed and naming nobody, RBAC's answer about the owner if
 * the transport asks about it (ownersToCheck).
 */
function facts(policy: Policy, input: ReviewInput, rbac: Rbac): Ownership {
  const access = accessOf(rbac);
  const granted = new Set<string>();
  const asked = ownersToCheck(policy, input, granted);
  return { granted, grantsKnown: true, access: Object.fromEntries(asked.map((o) => [o, access])) };
}

/** The route the list takes for the request's one removal. */
function routeOf(policy: Policy, input: ReviewInput) {
  const carrier = carrierFor(input.kind);
  assert.ok(carrier);
  const [change] = ownedChanges(policy, carrier, carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks);
  assert.ok(change);
  const env = new RemovalEnv(policy, input, undefined);
  env.enter(change);
  return { route: routeFor(removalRoutes(policy), env), change };
}

const KNOBS = (['allow', 'warn', 'deny'] as const).flatMap((u) => (['warn', 'deny'] as const).map((w) => ({ u, w })));

describe('the route list and the CEL compiled from it: the same outcome, in the route’s words', () => {
  for (const { u, w } of KNOBS) {
    test(`unverifiedRemoval: ${u}, wildcardGrants: ${w}`, () => {
      const policy = policyWith(u, w);
      const compiled = compilePolicies(renderNativePolicies(policy, { k8sVersion: '1.36' }).objects);
      const seen = new Set<RemovalOutcome>();
      for (const [kind, owner] of Object.entries(OWNERS))
        for (const r of REQUESTERS) {
          const where = `${kind} owner, ${r.name}`;
          const bare = removal(owner, r.user);
          const input = { ...bare, context: { ownership: facts(policy, bare, r.rbac) } };
          const { route, change } = routeOf(policy, input);
          seen.add(route.outcome);
          const native = admit(compiled, bare, { authorize: authorize(owner, r.rbac) });
          const webhook = evaluate(policy, input);
          const warned = webhook.notices.filter((n) => n.rule === 'owner-only-removal' && n.warning);
          assert.equal(native.allowed, route.outcome !== 'deny', `${where}: route ${route.name}`);
          assert.equal(webhook.allowed, native.allowed, where);
          if (route.outcome === 'deny') {
            // The hook's words and the route's reason, but for the grant, which CEL words only for some owners and
            // users (a divergence of words).
            const hookWords = (m: string | undefined) => m?.slice(0, m.lastIndexOf('; '));
            assert.ok(
              webhook.denials.some((d) => hookWords(d.message) === hookWords(native.denial?.message)),
              `${where}: ${native.denial?.message}`,
            );
            continue;
          }
          // A warn or break-glass route warns, in its declared words; an allowing one says nothing.
          assert.equal(warned.length, route.outcome === 'allow' ? 0 : 1, `${where}: route ${route.name}`);
          assert.deepEqual(
            native.warnings.map((x) => x.message),
            warned.map((n) => n.warning),
            `${where}: route ${route.name}`,
          );
          const { old } = change;
          const slots = { ...old, path: old.path, user: r.user.username, reowned: false, ownerless: owner === '' };
          if (route.outcome !== 'allow') assert.equal(warned[0]?.warning, route.warning.toJs(slots), where);
        }
      // Every outcome the knobs allow is walked: a deny always, warn or break-glass, and allow.
      assert.ok(seen.has('deny') && seen.has('breakGlass') && seen.has('allow'), [...seen].join());
    });
  }
});

describe('what native mode reads of the route list', () => {
  test('the owners denied or warned about unless RBAC allows follow unverifiedRemoval', () => {
    assert.equal(unlessRbac(policyWith('deny', 'deny'), 'deny').cel, 'true');
    assert.equal(unlessRbac(policyWith('warn', 'deny'), 'deny').cel, 'o in variables.registered');
    assert.equal(unlessRbac(policyWith('warn', 'deny'), 'warn').cel, '!(o in variables.registered)');
    assert.equal(unlessRbac(policyWith('allow', 'warn'), 'warn').cel, 'false');
  });

  test('wildcard rights end in the wildcard route under warn; under deny, denied for a registered owner', () => {
    assert.equal(wildcardRoute(policyWith('warn', 'warn'), false).name, 'wildcard');
    assert.equal(wildcardRoute(policyWith('warn', 'deny'), true).name, 'wildcard-denied');
    assert.equal(wildcardRoute(policyWith('warn', 'deny'), false).name, 'unverified');
    assert.equal(wildcardRoute(policyWith('deny', 'deny'), false).name, 'wildcard-denied');
  });

  test('a webhook-only input decides a removal only where its route changes the outcome', () => {
    assert.deepEqual(WEBHOOK_ONLY, { mirrored: 'twin', granted: 'grants', grantsUnknown: 'grants' });
    const granted = (u: Policy['unverifiedRemoval'], grantsKnown = true) => {
      const input = removal(OWNERS.unregistered, ERIN);
      const ownership: Ownership = { granted: new Set([OWNERS.unregistered]), grantsKnown, access: {} };
      return removalDecidedBy(policyWith(u, 'deny'), { ...input, context: { ownership } }, 'grants');
    };
    // Protected by a grant: denied by the webhook, unverifiedRemoval's outcome for native mode, unless that is deny.
    assert.equal(granted('warn'), true);
    assert.equal(granted('allow'), true);
    assert.equal(granted('deny'), false);
    assert.equal(removalDecidedBy(policyWith('warn', 'deny'), removal(OWNERS.unregistered, ERIN), 'grants'), false);
    // No twin to mirror: the twin decides nothing.
    assert.equal(removalDecidedBy(policyWith('warn', 'deny'), removal(OWNERS.registered, ERIN), 'twin'), false);
  });
});

describe('what a webhook-only input decides is a declared divergence of native mode', () => {
  test('an owner protected only by a grant, or grants not listed yet: covered wherever the route list says so', () => {
    for (const u of ['allow', 'warn', 'deny'] as const) {
      const policy = policyWith(u, 'deny');
      // As the module declares them: what render and the notes read.
      const native = ownerOnlyRemovalRule.native;
      const divergences = native && 'divergences' in native ? (native.divergences?.(policy) ?? []) : [];
      for (const grantsKnown of [true, false]) {
        const input = removal(OWNERS.unregistered, ERIN);
        const ownership: Ownership = { granted: new Set([OWNERS.unregistered]), grantsKnown, access: {} };
        const judged = { ...input, context: { ownership } };
        if (!removalDecidedBy(policy, judged, 'grants')) continue;
        assert.ok(
          divergences.some((d) => d.verdictDiffers?.(judged)),
          `unverifiedRemoval ${u}, grants ${grantsKnown ? 'listed' : 'not listed'}`,
        );
      }
    }
  });
});

describe('docs/ownership.md states the route list’s order', () => {
  test('registry, mirror, break-glass, then RBAC: a named grant, then wildcard rights', () => {
    const text = readDoc('docs/ownership.md').replace(/\s+/g, ' ');
    assert.match(
      text,
      /Order of the checks: registry, mirror, break-glass, RBAC \(a named grant, then wildcard rights\)/,
    );
    const names = removalRoutes(policyWith('warn', 'warn')).map((r) => r.name);
    assert.deepEqual(names.slice(0, 5), ['registry', 'mirror', 'break-glass', 'rbac', 'wildcard']);
  });
});
