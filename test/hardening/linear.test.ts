// Evaluation cost grows linearly with the number of hooks (and finalizers, owner references, annotations): no
// rule, carrier, ratcheting step or answer builder loops over them inside a loop over them.
//
// How it is proved, without a clock: while the whole path runs (handle + toAdmissionReview + JSON.stringify),
// every array method, array/Map/Set iteration and Object.keys/entries/values counts the elements it may visit,
// and every keyed lookup (Object.hasOwn, Map/Set get/has/set/add) counts one. Linear code visits about 10 times
// as much for 50,000 items as for 5,000; an includes/find/indexOf in a loop, a spread or Set rebuilt per item, or a
// probing loop of lookups visits about 100 times as much. The count is exact and the same on any machine, where a
// timing ratio is not: garbage collection and caches make linear code run many times slower on 10 times the items.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle, type Handling } from '../../src/admission/handle.js';
import { toAdmissionReview } from '../../src/admission/response.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject, ReviewInput } from '../../src/core/types.js';
import { CAPI_USERS, capiInput, capiMachine, capiPolicy, PRE_DRAIN } from '../fixtures/capi.js';
import { CHILD_USERS, childInput, launcherPod, VM_FINALIZER, VM_POLICY } from '../fixtures/children.js';
import { reviewInput } from '../fixtures/input.js';
import { visits } from '../helpers/visits.js';
import { ETCD, machine, USERS } from '../fixtures/openshift.js';

const SMALL = 5_000;
const LARGE = 50_000;
/** Linear: 10 and a little (constant work per request). Quadratic: about 100. */
const MAX_RATIO = 15;

const hooks = (n: number, owner: string = ETCD.owner, prefix = 'Hook') =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, owner }));
const openshift = (o: {
  operation: 'CREATE' | 'UPDATE';
  object: KubeObject;
  oldObject?: KubeObject;
  user?: ReviewInput['userInfo'];
}): ReviewInput =>
  reviewInput({
    operation: o.operation,
    object: o.object,
    oldObject: o.oldObject ?? null,
    user: o.user ?? USERS.alice,
  });

interface Case {
  name: string;
  webhook: Handling;
  policy: Policy;
  input: (n: number) => ReviewInput;
}

const strict: Policy = { ...DEFAULT_POLICY, strictOwners: true };
const warnAll: Policy = {
  ...DEFAULT_POLICY,
  enforcement: { ...DEFAULT_POLICY.enforcement, 'hook-naming': 'warn', 'single-owner': 'warn' },
};

const CASES: Case[] = [
  {
    name: 'a non-owner removes every hook (owner-only-removal denials)',
    webhook: 'validate',
    policy: DEFAULT_POLICY,
    input: (n) =>
      openshift({ operation: 'UPDATE', object: machine({ preDrain: [] }), oldObject: machine({ preDrain: hooks(n) }) }),
  },
  {
    name: 'break-glass removes every hook (notices, warnings, audit annotations)',
    webhook: 'validate',
    policy: DEFAULT_POLICY,
    input: (n) =>
      openshift({
        operation: 'UPDATE',
        object: machine({ preDrain: [] }),
        oldObject: machine({ preDrain: hooks(n), preTerminate: hooks(n) }),
        user: USERS.admin,
      }),
  },
  {
    name: 'the owner removes every hook (audit traces, route registry)',
    webhook: 'validate',
    policy: DEFAULT_POLICY,
    input: (n) =>
      openshift({
        operation: 'UPDATE',
        object: machine({ preDrain: [] }),
        oldObject: machine({ preDrain: hooks(n) }),
        user: USERS.etcdOperator,
      }),
  },
  {
    name: 'unverified removals of an unregistered owner (warnings, audit annotations)',
    webhook: 'validate',
    policy: DEFAULT_POLICY,
    input: (n) =>
      openshift({
        operation: 'UPDATE',
        object: machine({ preDrain: [] }),
        oldObject: machine({ preDrain: hooks(n, 'team/unknown') }),
      }),
  },
  {
    name: 'removals judged with the ownership fact, every owner distinct (RBAC route, access unknown)',
    webhook: 'validate',
    policy: DEFAULT_POLICY,
    input: (n) => {
      const old = Array.from({ length: n }, (_, i) => ({ name: `Hook${i}`, owner: `team/${i}` }));
      const access = Object.fromEntries(old.filter((_, i) => i % 2 === 0).map((h) => [h.owner, 'allowed' as const]));
      return {
        ...openshift({ operation: 'UPDATE', object: machine({ preDrain: [] }), oldObject: machine({ preDrain: old }) }),
        context: { ownership: { granted: new Set(old.map((h) => h.owner)), access, grantsKnown: true } },
      };
    },
  },
  {
    name: 'hooks added to a deleting Machine (deletion-freeze)',
    webhook: 'validate',
    policy: DEFAULT_POLICY,
    input: (n) =>
      openshift({
        operation: 'UPDATE',
        object: machine({ preDrain: hooks(n), deletionTimestamp: '2026-11-24T10:00:00Z' }),
        oldObject: machine({ deletionTimestamp: '2026-11-24T10:00:00Z' }),
      }),
  },
  {
    name: 'one name over and over, in both stages (single-owner)',
    webhook: 'validate',
    policy: DEFAULT_POLICY,
    input: (n) =>
      openshift({
        operation: 'CREATE',
        object: machine({
          preDrain: hooks(n).map((h) => ({ ...h, name: 'Same' })),
          preTerminate: hooks(n, 'other/owner').map((h) => ({ ...h, name: 'Same' })),
        }),
      }),
  },
  {
    name: 'invalid names the stored object already had (ratcheting)',
    webhook: 'validate',
    policy: DEFAULT_POLICY,
    input: (n) =>
      openshift({
        operation: 'UPDATE',
        object: machine({ preDrain: hooks(n, 'x', 'bad name ') }),
        oldObject: machine({ preDrain: hooks(n, 'x', 'bad name ') }),
      }),
  },
  {
    name: 'unregistered owners under strictOwners',
    webhook: 'validate',
    policy: strict,
    input: (n) =>
      openshift({ operation: 'UPDATE', object: machine({ preDrain: hooks(n, 'team/unknown') }), oldObject: machine() }),
  },
  {
    name: 'every violation as a warning',
    webhook: 'validate',
    policy: warnAll,
    input: (n) => openshift({ operation: 'CREATE', object: machine({ preDrain: hooks(n, 'x', 'bad name ') }) }),
  },
  {
    name: 'a default hook added to a Machine with many hooks (mutate, review)',
    webhook: 'mutate-then-validate',
    policy: DEFAULT_POLICY,
    input: (n) => openshift({ operation: 'CREATE', object: machine({ preDrain: hooks(n, 'team/x') }) }),
  },
  {
    name: 'Cluster API hook annotations removed by a non-owner',
    webhook: 'mutate-then-validate',
    policy: capiPolicy(),
    input: (n) => {
      const annotations = Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`${PRE_DRAIN}/hook-${i}`, 'clusteroperator/etcd']),
      );
      return capiInput({
        operation: 'UPDATE',
        object: capiMachine(),
        oldObject: capiMachine({ annotations }),
        user: CAPI_USERS.alice,
      });
    },
  },
  {
    name: 'a child with many owner references and finalizers (child rules)',
    webhook: 'mutate-then-validate',
    policy: VM_POLICY,
    input: (n) => {
      const refs = Array.from({ length: n }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: `cm-${i}`,
        uid: `u-${i}`,
        controller: false,
      }));
      const finalizers = Array.from({ length: n }, (_, i) => `example.com/f-${i}`);
      return childInput({
        operation: 'UPDATE',
        object: launcherPod({ name: 'p', ownerReferences: refs, finalizers: [] }),
        oldObject: launcherPod({ name: 'p', ownerReferences: refs, finalizers: [...finalizers, VM_FINALIZER] }),
        user: CHILD_USERS.alice,
      });
    },
  },
];

const answer = (c: Case, input: ReviewInput) => (): void => {
  assert.ok(JSON.stringify(toAdmissionReview('u', handle(c.webhook, c.policy, input).result)).length > 0);
};

describe(`cost is linear: ${LARGE} items take less than ${MAX_RATIO}x the work of ${SMALL}`, () => {
  for (const c of CASES) {
    test(c.name, () => {
      const small = visits(answer(c, c.input(SMALL)));
      const large = visits(answer(c, c.input(LARGE)));
      assert.ok(small >= SMALL, `only ${small} visits for ${SMALL} items: the counters are not counting`);
      const ratio = large / small;
      assert.ok(
        ratio < MAX_RATIO,
        `${LARGE} items took ${ratio.toFixed(1)}x the visits of ${SMALL} (${large} against ${small})`,
      );
    });
  }
});

test('a list of findings too long to pass as arguments is still collected (no push(...list))', () => {
  // 160,000 break-glass removals: past the ~120,000 arguments a spread call can take on Node's default stack.
  const input = openshift({
    operation: 'UPDATE',
    object: machine({ preDrain: [] }),
    oldObject: machine({ preDrain: hooks(160_000, ETCD.owner, 'H') }),
    user: USERS.admin,
  });
  const { result, decision } = handle('validate', DEFAULT_POLICY, input);
  assert.equal(result.allowed, true);
  assert.equal(decision.notices.length, 160_000);
});
