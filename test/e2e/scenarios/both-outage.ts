// Both mode's promise: with hookkeeper down, the native policies still refuse what the rules refuse and still add the
// default hook, and the webhooks (failurePolicy Ignore) block nothing. Runs in both mode only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { rejected } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf, metadataOf, removeHook } from './helpers.js';
import { ALICE_REMOVAL_DENIAL, controlPlaneMachine } from './owner-only-removal.js';

export const bothOutageScenarios: Scenario = (env) => {
  describe('hookkeeper down while the native policies stand behind it', () => {
    test('with hookkeeper stopped: removal still denied, other updates pass, creates still get the etcd hook', async (t) => {
      const e = env();
      if (e.mode !== 'both') {
        t.skip('both mode only');
        return;
      }
      await controlPlaneMachine(e, 'cp-both-outage');
      await e.hookkeeper.stop();
      try {
        const alice = e.machines('alice');
        const current = await alice.get(MACHINE_NAMESPACE, 'cp-both-outage');
        const refusal = await rejected(() =>
          alice.patch(MACHINE_NAMESPACE, 'cp-both-outage', removeHook(current, 'preDrain', ETCD_HOOK.name)),
        );
        assertOurDenial(e, refusal, [ALICE_REMOVAL_DENIAL]);
        const { object: labelled } = await alice.patch(MACHINE_NAMESPACE, 'cp-both-outage', [
          { op: 'add', path: '/metadata/labels/e2e.hookkeeper.io~1touched', value: 'yes' },
        ]);
        assert.equal((metadataOf(labelled)['labels'] as Record<string, string>)['e2e.hookkeeper.io/touched'], 'yes');
        const { object: created } = await e
          .machines('machineApi')
          .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'cp-both-outage-new', role: 'master' }));
        assert.deepEqual(hooksOf(created, 'preDrain'), [ETCD_HOOK]);
      } finally {
        await e.hookkeeper.start();
      }
    });
  });
};
