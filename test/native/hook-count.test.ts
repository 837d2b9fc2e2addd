// hook-count in both engines (issue 34): the rendered CEL counts against maxHooksPerStage only the hooks of owners
// the policy does not name, as the webhook does, and bounds the named owners' hooks by their fixed ceiling.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { capiInput, capiMachine } from '../fixtures/capi.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';
import type { KubeObject, ReviewInput, UserInfo } from '../../src/core/types.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { admit, compilePolicies } from './evaluator/admission.js';
import { compare, type Subject } from './differential/compare.js';

const { objects, divergences } = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: '1.36' });
const subject: Subject = { policy: DEFAULT_POLICY, compiled: compilePolicies(objects), divergences };
const nobody = { authorize: () => false };

const hooks = (n: number, owner = 'team-a', prefix = `${owner.replace(/\W/g, '-')}-`): HookSpec[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, owner }));
const create = (object: KubeObject): ReviewInput =>
  reviewInput({ operation: 'CREATE', object, user: USERS.machineApi });
const update = (object: KubeObject, oldObject: KubeObject, user: UserInfo = USERS.machineApi): ReviewInput =>
  reviewInput({ operation: 'UPDATE', object, oldObject, user });

/** The native verdict (allowed, and the denial's words), after checking that the webhook's agrees. */
function both(input: ReviewInput): { allowed: boolean; denial?: string; object: KubeObject | null } {
  const verdict = compare(subject, input);
  assert.ok(verdict.agree && !verdict.covered, JSON.stringify(verdict).slice(0, 2000));
  const native = admit(subject.compiled, input, nobody);
  return { allowed: native.allowed, denial: native.denial?.message, object: native.object };
}

const others = (path: string, n: number) =>
  `${path}: Too many: ${n}: must have at most 64 items (policy maxHooksPerStage; hooks of owners the policy names are not counted)`;

describe('hook-count in native mode, held to the webhook', () => {
  test('the etcd operator re-adds its hook beside 64 unprotected hooks', () => {
    const before = machine({ preDrain: hooks(64) });
    const after = machine({ preDrain: [...hooks(64), { ...ETCD }] });
    assert.equal(both(update(after, before, USERS.etcdOperator)).allowed, true);
  });

  test('a control-plane CREATE with 64 unprotected hooks gets the etcd hook; with 65 it is refused', () => {
    const at = both(create(machine({ role: 'master', preDrain: hooks(64) })));
    assert.equal(at.allowed, true);
    const stored = (at.object?.['spec'] as { lifecycleHooks: { preDrain: HookSpec[] } }).lifecycleHooks.preDrain;
    assert.deepEqual([stored.length, stored.at(-1)], [65, ETCD]);
    const over = both(create(machine({ role: 'master', preDrain: hooks(65) })));
    assert.deepEqual([over.allowed, over.denial], [false, others('spec.lifecycleHooks.preDrain', 65)]);
  });

  test("the named owners' fixed ceiling, and each count ratcheting on its own", () => {
    const etcd = (n: number) => hooks(n, ETCD.owner);
    assert.equal(both(create(machine({ role: 'worker', preDrain: [...etcd(64), ...hooks(64)] }))).allowed, true);
    assert.deepEqual(
      both(create(machine({ role: 'worker', preTerminate: [...etcd(65), ...hooks(3)] }))).denial,
      [
        'spec.lifecycleHooks.preTerminate: Too many: 65: must have at most 64 items (hooks of owners the policy names: owners, reservedHooks, defaultHooks)',
      ][0],
    );
    const stored = machine({ role: 'worker', preDrain: [...etcd(66), ...hooks(70)] });
    const keeps = machine({ role: 'worker', preDrain: [...etcd(66), ...hooks(69), ...hooks(1, 'team-b')] });
    assert.equal(both(update(keeps, stored, USERS.etcdOperator)).allowed, true);
    const grows = machine({ role: 'worker', preDrain: [...etcd(67), ...hooks(69)] });
    assert.equal(both(update(grows, stored, USERS.etcdOperator)).allowed, false);
  });

  test('Cluster API annotations count alike', () => {
    const annotations = (owner: string, n: number, prefix: string): Record<string, string> =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`pre-drain.delete.hook.machine.cluster.x-k8s.io/${prefix}${i}`, owner]),
      );
    const object = capiMachine({
      annotations: { ...annotations('team-a', 64, 'a'), ...annotations(ETCD.owner, 2, 'e') },
    });
    assert.equal(both(capiInput({ operation: 'CREATE', object })).allowed, true);
    const over = capiMachine({
      annotations: { ...annotations('team-a', 65, 'a'), ...annotations(ETCD.owner, 2, 'e') },
    });
    assert.equal(both(capiInput({ operation: 'CREATE', object: over })).allowed, false);
  });
});
