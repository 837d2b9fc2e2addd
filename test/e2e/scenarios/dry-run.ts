// Server-side dry run (dryRun=All): admission still runs (the webhooks declare sideEffects: None; policies have
// none), and nothing is persisted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf, metadataOf, removeHook } from './helpers.js';
import { ALICE_REMOVAL_DENIAL, controlPlaneMachine } from './owner-only-removal.js';

export const dryRunScenarios: Scenario = (env) => {
  describe('server-side dry run', () => {
    test('a forbidden update gets the same denial, and nothing changes', async () => {
      const e = env();
      await controlPlaneMachine(e, 'cp-dry-run-update');
      const alice = e.machines('alice');
      const before = await alice.get(MACHINE_NAMESPACE, 'cp-dry-run-update');
      const refusal = await rejected(() =>
        alice.patch(MACHINE_NAMESPACE, 'cp-dry-run-update', removeHook(before, 'preDrain', ETCD_HOOK.name), {
          dryRun: true,
        }),
      );
      assertOurDenial(e, refusal, [ALICE_REMOVAL_DENIAL]);
      const after = await alice.get(MACHINE_NAMESPACE, 'cp-dry-run-update');
      assert.equal(metadataOf(after)['resourceVersion'], metadataOf(before)['resourceVersion']);
      assert.deepEqual(hooksOf(after, 'preDrain'), [ETCD_HOOK]);
    });

    test('an allowed create shows the injected hook in the response, and nothing is stored', async () => {
      const machines = env().machines('machineApi');
      const { object } = await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'cp-dry-run-create', role: 'master' }),
        { dryRun: true },
      );
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK]);
      assert.equal(await machines.exists(MACHINE_NAMESPACE, 'cp-dry-run-create'), false);
    });
  });
};
