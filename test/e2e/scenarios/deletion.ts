// A Machine marked for deletion: its hooks are frozen (machine-api-operator's rule and wording), but its controller
// may always remove its finalizers so the deletion can finish (anyone else: controller-finalizer.ts).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  ETCD_HOOK,
  MACHINE_FINALIZER,
  MACHINE_NAMESPACE,
  openshiftMachine,
} from '../../../testing/control-plane/machines.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf, metadataOf } from './helpers.js';

const NAME = 'cp-deleting';

export const deletionScenarios: Scenario = (env) => {
  describe('a Machine marked for deletion', () => {
    before(async () => {
      const machines = env().machines('machineApi');
      // The finalizer keeps the Machine around after DELETE (no controller will remove it): deletionTimestamp is set.
      await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: NAME, role: 'master', finalizers: [MACHINE_FINALIZER] }),
      );
      await machines.delete(MACHINE_NAMESPACE, NAME);
      const deleting = await machines.get(MACHINE_NAMESPACE, NAME);
      assert.equal(typeof metadataOf(deleting)['deletionTimestamp'], 'string');
      assert.deepEqual(hooksOf(deleting, 'preDrain'), [ETCD_HOOK]);
    });

    test('adding a hook is denied with the machine-api-operator wording, even for break-glass', async () => {
      const refusal = await rejected(() =>
        env()
          .machines('admin')
          .patch(MACHINE_NAMESPACE, NAME, [
            {
              op: 'add',
              path: '/spec/lifecycleHooks/preDrain/-',
              value: { name: 'example.com/LateHook', owner: 'late-team' },
            },
          ]),
      );
      assertOurDenial(env(), refusal, [
        'spec.lifecycleHooks.preDrain: Forbidden: pre-drain hooks are immutable when machine is marked for ' +
          'deletion: the following hooks are new or changed: [{Name:example.com/LateHook Owner:late-team}]',
      ]);
      assert.deepEqual(hooksOf(await env().machines('admin').get(MACHINE_NAMESPACE, NAME), 'preDrain'), [ETCD_HOOK]);
    });

    test('its controller removing all its finalizers is allowed (the etcd hook still in place), and it goes', async () => {
      const machines = env().machines('machineApi');
      const { object } = await machines.patch(MACHINE_NAMESPACE, NAME, [
        { op: 'test', path: '/metadata/finalizers', value: [MACHINE_FINALIZER] },
        { op: 'remove', path: '/metadata/finalizers' },
      ]);
      assert.equal(metadataOf(object)['finalizers'], undefined);
      await pollUntil(`${NAME} to be gone`, 10_000, async () =>
        (await machines.exists(MACHINE_NAMESPACE, NAME)) ? undefined : true,
      );
    });
  });
};
