// Mutating webhook: control-plane Machines get the etcd quorum hook on create; other Machines are left alone.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../fixtures/e2e-objects.js';
import type { Scenario } from '../harness/suite.js';
import { hooksOf } from './helpers.js';

export const defaultHookScenarios: Scenario = (env) => {
  describe('default hooks', () => {
    test('a control-plane Machine is created with EtcdQuorumOperator injected, as stored', async () => {
      const machines = env().machines('machineApi');
      const { object } = await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'cp-injected-0', role: 'master' }),
      );
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK]);
      const stored = await machines.get(MACHINE_NAMESPACE, 'cp-injected-0');
      assert.deepEqual(hooksOf(stored, 'preDrain'), [ETCD_HOOK]);
      assert.deepEqual(hooksOf(stored, 'preTerminate'), []);
    });

    test('the etcd hook is appended after the hooks a control-plane Machine already has', async () => {
      const gate = { name: 'example.com/DrainGate', owner: 'drain-team' };
      const machines = env().machines('machineApi');
      await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'cp-injected-1', role: 'master', preDrain: [gate] }),
      );
      const stored = await machines.get(MACHINE_NAMESPACE, 'cp-injected-1');
      assert.deepEqual(hooksOf(stored, 'preDrain'), [gate, ETCD_HOOK]);
    });

    test('a worker Machine is stored without any hook added', async () => {
      const machines = env().machines('machineApi');
      await machines.create(MACHINE_NAMESPACE, openshiftMachine({ name: 'worker-untouched', role: 'worker' }));
      const stored = await machines.get(MACHINE_NAMESPACE, 'worker-untouched');
      assert.deepEqual((stored['spec'] as Record<string, unknown>)['lifecycleHooks'], {});
    });
  });
};
