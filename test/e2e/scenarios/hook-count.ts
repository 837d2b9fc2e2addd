// hook-count (issue 29): at most 64 hooks a stage by default, so native mode's CEL stays inside its cost budget; 64
// are stored, a 65th is refused in the same words in every mode, and the owners still remove hooks at the bound.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine, type Hook } from '../../../testing/control-plane/machines.js';
import { rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf, removeHook } from './helpers.js';

const gates = (n: number, stage: string): Hook[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${stage}-gate-${i}`, owner: ETCD_HOOK.owner }));

export const hookCountScenarios: Scenario = (env) => {
  describe('hook count bound', () => {
    test('64 hooks in each stage are stored; a 65th is refused; the owner removes one at the bound', async () => {
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
      assertOurDenial(e, refusal, [
        'spec.lifecycleHooks.preDrain: Too many: 65: must have at most 64 items (policy maxHooksPerStage)',
      ]);
      assert.equal(hooksOf(await e.machines('alice').get(MACHINE_NAMESPACE, name), 'preDrain').length, 64);

      const operator = e.machines('etcdOperator');
      const { object, warnings } = await operator.patch(
        MACHINE_NAMESPACE,
        name,
        removeHook(await operator.get(MACHINE_NAMESPACE, name), 'preDrain', 'drain-gate-63'),
      );
      assert.equal(hooksOf(object, 'preDrain').length, 63);
      assert.deepEqual(warnings, []);
    });

    test('a Machine created with 65 hooks in a stage is refused', async () => {
      const e = env();
      const refusal = await rejected(() =>
        e
          .machines('machineApi')
          .create(
            MACHINE_NAMESPACE,
            openshiftMachine({ name: 'hooks-over-bound', role: 'worker', preTerminate: gates(65, 'term') }),
          ),
      );
      const message =
        'spec.lifecycleHooks.preTerminate: Too many: 65: must have at most 64 items (policy maxHooksPerStage)';
      if (e.mode === 'webhook') {
        assert.equal(refusal.by, 'webhook', refusal.message);
        assert.match(refusal.message, new RegExp(`denied the request: ${message.replace(/[().]/g, '\\$&')}$`));
      } else assertOurDenial(e, refusal, [message]);
      assert.equal(await e.machines('machineApi').exists(MACHINE_NAMESPACE, 'hooks-over-bound'), false);
    });
  });
};
