// hook-count (issues 29 and 34): at most 64 hooks a stage of owners the policy does not name, so native mode's CEL
// stays inside its cost budget; 64 are stored, a 65th is refused in the same words in every mode, and what others add
// never refuses a named owner's hook: the etcd operator adds its hook at the bound, the default hook is added to a
// control-plane CREATE at the bound.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine, type Hook } from '../../../testing/control-plane/machines.js';
import { CREATE_DENIAL_PREFIX, rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf, removeHook } from './helpers.js';

/** n hooks of owners the suite's policy does not name. */
const gates = (n: number, stage: string): Hook[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${stage}-gate-${i}`, owner: `team-${i % 4}` }));

const tooMany = (stage: string, n: number): string =>
  `spec.lifecycleHooks.${stage}: Too many: ${n}: must have at most 64 items (policy maxHooksPerStage; hooks of owners ` +
  'the policy names are not counted)';

export const hookCountScenarios: Scenario = (env) => {
  describe('hook count bound', () => {
    test('64 unprotected hooks a stage are stored; a 65th is refused; the etcd operator adds and removes its hook', async () => {
      const e = env();
      const name = 'hooks-at-bound';
      await e
        .machines('machineApi')
        .create(
          MACHINE_NAMESPACE,
          openshiftMachine({ name, role: 'worker', preDrain: gates(64, 'drain'), preTerminate: gates(64, 'term') }),
        );
      const stored = await e.machines('alice').get(MACHINE_NAMESPACE, name);
      assert.equal(hooksOf(stored, 'preDrain').length, 64);
      assert.equal(hooksOf(stored, 'preTerminate').length, 64);

      const refusal = await rejected(() =>
        e
          .machines('alice')
          .patch(MACHINE_NAMESPACE, name, [
            { op: 'add', path: '/spec/lifecycleHooks/preDrain/-', value: { name: 'one-too-many', owner: 'team-a' } },
          ]),
      );
      assertOurDenial(e, refusal, [tooMany('preDrain', 65)]);
      assert.equal(hooksOf(await e.machines('alice').get(MACHINE_NAMESPACE, name), 'preDrain').length, 64);

      // The etcd operator's re-add of its quorum hook (issue 34): refused as "Too many: 65" before the classes.
      const operator = e.machines('etcdOperator');
      const added = await operator.patch(MACHINE_NAMESPACE, name, [
        { op: 'add', path: '/spec/lifecycleHooks/preDrain/-', value: ETCD_HOOK },
      ]);
      assert.deepEqual(hooksOf(added.object, 'preDrain').at(-1), ETCD_HOOK);
      assert.deepEqual(added.warnings, []);
      const { object, warnings } = await operator.patch(
        MACHINE_NAMESPACE,
        name,
        removeHook(added.object, 'preDrain', ETCD_HOOK.name),
      );
      assert.equal(hooksOf(object, 'preDrain').length, 64);
      assert.deepEqual(warnings, []);
    });

    test('a control-plane CREATE with 64 unprotected hooks gets the etcd hook and is stored', async () => {
      const e = env();
      const name = 'cp-hooks-at-bound';
      const { object } = await e
        .machines('machineApi')
        .create(MACHINE_NAMESPACE, openshiftMachine({ name, role: 'master', preDrain: gates(64, 'drain') }));
      const preDrain = hooksOf(await e.machines('alice').get(MACHINE_NAMESPACE, name), 'preDrain');
      assert.deepEqual([preDrain.length, preDrain.at(-1)], [65, ETCD_HOOK]);
      assert.deepEqual(hooksOf(object, 'preDrain'), preDrain);
    });

    test('a Machine created with 65 unprotected hooks in a stage is refused', async () => {
      const e = env();
      const refusal = await rejected(() =>
        e
          .machines('machineApi')
          .create(
            MACHINE_NAMESPACE,
            openshiftMachine({ name: 'hooks-over-bound', role: 'worker', preTerminate: gates(65, 'term') }),
          ),
      );
      assertOurDenial(e, refusal, [tooMany('preTerminate', 65)], CREATE_DENIAL_PREFIX);
      assert.equal(await e.machines('machineApi').exists(MACHINE_NAMESPACE, 'hooks-over-bound'), false);
    });
  });
};
