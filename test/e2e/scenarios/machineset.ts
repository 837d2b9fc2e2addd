// MachineSet templates: the hooks every new Machine starts with get the same naming rules; MachineSets are not mutated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachineSet } from '../../../testing/control-plane/machines.js';
import { CREATE_DENIAL_PREFIX, rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf } from './helpers.js';

const TEMPLATE = ['spec', 'template', 'spec'] as const;

export const machineSetScenarios: Scenario = (env) => {
  describe('MachineSet templates', () => {
    test('a bad hook name in the template: rejected by the CRD schema', async () => {
      const sets = env().machineSets('machineApi');
      const refusal = await rejected(() =>
        sets.create(
          MACHINE_NAMESPACE,
          openshiftMachineSet({ name: 'ms-bad-name', preDrain: [{ name: '-gate-', owner: 'team-a' }] }),
        ),
      );
      assert.equal(refusal.by, 'schema', refusal.message);
      assert.match(
        refusal.message,
        /^MachineSet\.machine\.openshift\.io "ms-bad-name" is invalid: spec\.template\.spec\.lifecycleHooks\.preDrain\[0\]\.name: Invalid value: "-gate-": .* should match /,
      );
    });

    test('the reserved etcd hook name with another owner in the template: rejected by hookkeeper', async () => {
      const sets = env().machineSets('machineApi');
      const refusal = await rejected(() =>
        sets.create(
          MACHINE_NAMESPACE,
          openshiftMachineSet({ name: 'ms-reserved', preDrain: [{ name: ETCD_HOOK.name, owner: 'someone' }] }),
        ),
      );
      assertOurDenial(
        env(),
        refusal,
        [
          'spec.template.spec.lifecycleHooks.preDrain[0].owner: Invalid value: "someone": ' +
            'hook name "EtcdQuorumOperator" is reserved for owner "clusteroperator/etcd"',
        ],
        CREATE_DENIAL_PREFIX,
      );
    });

    test('a valid template is stored as written (no hook injected into MachineSets)', async () => {
      const sets = env().machineSets('machineApi');
      const gate = { name: 'example.com/DrainGate', owner: 'drain-team' };
      await sets.create(MACHINE_NAMESPACE, openshiftMachineSet({ name: 'ms-valid', preDrain: [gate] }));
      assert.deepEqual(hooksOf(await sets.get(MACHINE_NAMESPACE, 'ms-valid'), 'preDrain', TEMPLATE), [gate]);
    });
  });
};
