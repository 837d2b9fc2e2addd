// ownersToCheck's removal part, read off owner-only-removal's route list (src/rules/owner-only-removal/routes.ts):
// for generated policies, hooks, requesters and RBAC, asking RBAC about the owners it returns gives each removed or
// re-owned hook of a Machine the outcome asking about every owner gives, and each owner it asks about is one whose
// answer can change an outcome.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { carrierFor } from '../../src/core/carriers.js';
import { ownedChanges, type HookChange } from '../../src/core/ownership.js';
import type { Policy } from '../../src/core/policy.js';
import type { OwnerAccess, ReviewInput, UserInfo } from '../../src/core/types.js';
import { ownersToCheck } from '../../src/rules/owner-only-removal/owners-to-check.js';
import { removalRoutes, RemovalEnv, type Route } from '../../src/rules/owner-only-removal/routes.js';
import { routeFor } from '../../src/rules/owner-only-removal/route-list.js';
import { reviewInput } from '../fixtures/input.js';
import { machine, USERS, type HookSpec } from '../fixtures/openshift.js';

const BACKUP_BOT: UserInfo = { username: 'backup-bot', groups: ['system:authenticated'] };
const ETCD = 'clusteroperator/etcd';
/** Registered (team/backup: backup-bot; etcd: its operator), unregistered, and the empty owner. */
const OWNERS = ['team/backup', ETCD, 'team/storage', 'team/db', ''] as const;
const REQUESTERS: readonly UserInfo[] = [BACKUP_BOT, USERS.etcdOperator, USERS.alice, USERS.admin];

interface Scenario {
  unverifiedRemoval: Policy['unverifiedRemoval'];
  wildcardGrants: Policy['wildcardGrants'];
  enforcement: 'deny' | 'warn';
  user: UserInfo;
  old: HookSpec[];
  /** Per stored hook: kept, removed, or re-owned to another owner. */
  fate: Array<'keep' | 'remove' | (typeof OWNERS)[number]>;
  grantsKnown: boolean;
  granted: string[];
  /** Owners a grant naming them allows the requester; wildcard: rights over every owner name. */
  named: string[];
  wildcard: boolean;
  mirrored: string[];
}

const owner = fc.constantFrom(...OWNERS);
const scenario = (reown: boolean): fc.Arbitrary<Scenario> =>
  fc
    .record({
      unverifiedRemoval: fc.constantFrom<Policy['unverifiedRemoval']>('allow', 'warn', 'deny'),
      wildcardGrants: fc.constantFrom<Policy['wildcardGrants']>('warn', 'deny'),
      enforcement: fc.constantFrom<'deny' | 'warn'>('deny', 'warn'),
      user: fc.constantFrom(...REQUESTERS),
      old: fc.uniqueArray(
        fc.record({ name: fc.constantFrom('Drain', 'Backup', 'Quorum', 'Gate', 'Snapshot'), owner }),
        { selector: (h) => h.name, minLength: 1, maxLength: 5 },
      ),
      fate: fc.array(reown ? fc.oneof(fc.constantFrom('keep', 'remove'), owner) : fc.constantFrom('keep', 'remove'), {
        minLength: 5,
        maxLength: 5,
      }),
      grantsKnown: fc.boolean(),
      granted: fc.subarray([...OWNERS]),
      named: fc.subarray([...OWNERS]),
      wildcard: fc.boolean(),
      mirrored: reown ? fc.subarray([...OWNERS]) : fc.constant([]),
    })
    .map((s) => s as Scenario);

function policyOf(s: Scenario): Policy {
  const owners = {
    ...DEFAULT_POLICY.owners,
    'team/backup': { users: ['backup-bot'], groups: [], serviceAccounts: [] },
  };
  const enforcement = { ...DEFAULT_POLICY.enforcement, 'owner-only-removal': s.enforcement };
  const { unverifiedRemoval, wildcardGrants } = s;
  return { ...structuredClone(DEFAULT_POLICY), owners, enforcement, unverifiedRemoval, wildcardGrants };
}

function inputOf(s: Scenario): ReviewInput {
  const now = s.old.flatMap((h, k): HookSpec[] => {
    const fate = s.fate[k] ?? 'keep';
    return fate === 'keep' ? [h] : fate === 'remove' ? [] : [{ ...h, owner: fate }];
  });
  const worker = { name: 'ci-ln-7x2k9-worker-a', role: 'worker' } as const;
  const input = reviewInput({
    operation: 'UPDATE',
    object: machine({ ...worker, preDrain: now, resourceVersion: '48300' }),
    oldObject: machine({ ...worker, preDrain: s.old }),
    user: s.user,
  });
  // The index's facts; RBAC's answers are filled in per question below.
  return { ...input, context: { ownership: { granted: new Set(s.granted), grantsKnown: s.grantsKnown, access: {} } } };
}

/** RBAC's answer about one owner, as the SubjectAccessReviews and the wildcard probe give it. */
const answer = (s: Scenario, o: string): OwnerAccess =>
  s.wildcard ? 'wildcard' : s.named.includes(o) ? 'allowed' : 'denied';

/** The route each changed hook takes when RBAC was asked about `asked` (each answering `rbac`), the rest unasked. */
function routes(
  policy: Policy,
  input: ReviewInput,
  s: Scenario,
  asked: readonly string[],
  rbac: (o: string) => OwnerAccess = (o) => answer(s, o),
): Array<{ change: HookChange; route: Route }> {
  const ownership = input.context?.ownership;
  assert.ok(ownership);
  const access = Object.fromEntries(asked.map((o) => [o, rbac(o)]));
  const judged = { ...input, context: { ownership: { ...ownership, access } } };
  const carrier = carrierFor(input.kind);
  assert.ok(carrier);
  const env = new RemovalEnv(policy, judged, (c) => s.mirrored.includes(c.old.owner));
  const changes = ownedChanges(policy, carrier, carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks);
  return changes.map((change) => {
    env.enter(change);
    return { change, route: routeFor(removalRoutes(policy), env) };
  });
}

/** The owners of the hooks the request removes or re-owns, each once: every owner RBAC could be asked about. */
function changedOwners(policy: Policy, input: ReviewInput): string[] {
  const carrier = carrierFor(input.kind);
  assert.ok(carrier);
  const changes = ownedChanges(policy, carrier, carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks);
  return [...new Set(changes.map((c) => c.old.owner))].filter((o) => o !== '');
}

describe('ownersToCheck asks RBAC about a Machine’s changed owner exactly where the route list lets its answer decide', () => {
  test('asking about its owners gives every removal the outcome asking about all owners gives', () => {
    fc.assert(
      fc.property(scenario(true), (s) => {
        const [policy, input] = [policyOf(s), inputOf(s)];
        const asked = ownersToCheck(policy, input);
        const some = routes(policy, input, s, asked);
        const every = routes(policy, input, s, changedOwners(policy, input));
        some.forEach(({ change, route }, k) => {
          const full = every[k]?.route;
          assert.ok(full);
          if (route.outcome === full.outcome) return;
          // The one difference, by design: wildcard rights on an owner whose hook goes whatever RBAC says are not
          // warned about, for the probe only follows an owner asked about (native mode's families ask alike).
          assert.ok(
            s.wildcard && full.name === 'wildcard' && route.name === 'unverified' && route.outcome === 'allow',
            `hook ${change.old.name} of ${JSON.stringify(change.old.owner)}: asked ${JSON.stringify(asked)}, ` +
              `route ${route.name} (${route.outcome}) against ${full.name} (${full.outcome})`,
          );
        });
      }),
      { numRuns: 400 },
    );
  });

  test('every owner it asks about has an answer that changes a removal’s outcome', () => {
    fc.assert(
      fc.property(scenario(false), (s) => {
        const [policy, input] = [policyOf(s), inputOf(s)];
        const asked = ownersToCheck(policy, input);
        for (const o of asked) {
          const outcomes = (a: OwnerAccess) =>
            routes(policy, input, s, asked, (x) => (x === o ? a : answer(s, x)))
              .filter(({ change }) => change.old.owner === o)
              .map(({ route }) => route.outcome);
          assert.notDeepEqual(outcomes('allowed'), outcomes('denied'), `owner ${o} asked about for nothing`);
        }
      }),
      { numRuns: 400 },
    );
  });
});
