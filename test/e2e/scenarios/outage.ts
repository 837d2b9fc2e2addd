// hookkeeper down: the API server applies each webhook's failurePolicy (UPDATE validation Fail, CREATE Ignore), but
// never sends the Machine controller's finalizer-only update of a deleting Machine (matchConditions), so it can still
// go (anyone else's waits, while the Machine carries a hook: controller-finalizer);
// hookkeeper back: normal service. Runs last in its suite, and restarts hookkeeper whatever happens.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ETCD_HOOK,
  MACHINE_FINALIZER,
  MACHINE_NAMESPACE,
  openshiftMachine,
} from '../../../testing/control-plane/machines.js';
import { waitForEnforcement } from '../../../testing/control-plane/hookkeeper.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { DENIAL_PREFIX, rejected, WEBHOOK_NAME } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { hooksOf, metadataOf, removeHook } from './helpers.js';
import { ALICE_REMOVAL_DENIAL, controlPlaneMachine } from './owner-only-removal.js';

const DELETING = 'cp-outage-deleting';
const LABEL_PATCH = [{ op: 'add' as const, path: '/metadata/labels/e2e.hookkeeper.io~1touched', value: 'yes' }];
/** An update that adds a hook: the validating webhook is always sent one (changes-what-rules-read). */
const HOOK_PATCH = [
  { op: 'add' as const, path: '/spec/lifecycleHooks/preTerminate', value: [{ name: 'Outage', owner: 'team/outage' }] },
];

export const outageScenarios: Scenario = (env) => {
  describe('webhook outage', () => {
    before(async () => {
      const e = env();
      await controlPlaneMachine(e, 'cp-outage');
      // Held by its finalizer after DELETE (no controller removes it): deleting, the etcd hook in place.
      const machines = e.machines('machineApi');
      await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: DELETING, role: 'master', finalizers: [MACHINE_FINALIZER] }),
      );
      await machines.delete(MACHINE_NAMESPACE, DELETING);
      await e.hookkeeper.stop();
    });

    after(async () => {
      const e = env();
      if (!e.hookkeeper.running()) await e.hookkeeper.start();
    });

    test('an update of a hook fails: the validating webhook fails closed (failurePolicy Fail)', async () => {
      const e = env();
      const machines = e.machines('admin');
      const refusal = await rejected(() => machines.patch(MACHINE_NAMESPACE, 'cp-outage', HOOK_PATCH));
      assert.equal(refusal.by, 'webhook-unreachable', refusal.message);
      assert.equal(refusal.code, 500);
      assert.ok(
        refusal.message.includes(
          `failed calling webhook "${WEBHOOK_NAME}": failed to call webhook: Post "${e.hookkeeper.url}/validate?timeout=5s"`,
        ),
        refusal.message,
      );
      const stored = await machines.get(MACHINE_NAMESPACE, 'cp-outage');
      assert.deepEqual(hooksOf(stored, 'preTerminate'), []);
    });

    test('an update that touches nothing a rule reads is not sent: it goes through the outage', async () => {
      const { object } = await env().machines('admin').patch(MACHINE_NAMESPACE, 'cp-outage', LABEL_PATCH);
      assert.equal((metadataOf(object)['labels'] as Record<string, string>)['e2e.hookkeeper.io/touched'], 'yes');
    });

    test("a deleting Machine: its hooks cannot go with its finalizers, nor its finalizers by a Machine editor; its controller's removal goes", async () => {
      // The matchConditions skip only the controller's finalizer-only update; one that also removes a hook, or
      // anyone else's while a hook remains, waits for hookkeeper.
      const e = env();
      const machines = e.machines('machineApi');
      const deleting = await machines.get(MACHINE_NAMESPACE, DELETING);
      assert.deepEqual(hooksOf(deleting, 'preDrain'), [ETCD_HOOK]);
      const refusal = await rejected(() =>
        e
          .machines('admin')
          .patch(MACHINE_NAMESPACE, DELETING, [
            ...removeHook(deleting, 'preDrain', ETCD_HOOK.name),
            { op: 'remove', path: '/metadata/finalizers' },
          ]),
      );
      assert.equal(refusal.by, 'webhook-unreachable', refusal.message);
      assert.deepEqual(hooksOf(await machines.get(MACHINE_NAMESPACE, DELETING), 'preDrain'), [ETCD_HOOK]);
      const editor = await rejected(() =>
        e.machines('alice').patch(MACHINE_NAMESPACE, DELETING, [{ op: 'remove', path: '/metadata/finalizers' }]),
      );
      assert.equal(editor.by, 'webhook-unreachable', editor.message);
      await machines.patch(MACHINE_NAMESPACE, DELETING, [
        { op: 'test', path: '/metadata/finalizers', value: [MACHINE_FINALIZER] },
        { op: 'remove', path: '/metadata/finalizers' },
      ]);
      await pollUntil(`${DELETING} to be gone`, 10_000, async () =>
        (await machines.exists(MACHINE_NAMESPACE, DELETING)) ? undefined : true,
      );
    });

    test('a create succeeds, unmutated: both webhooks that see CREATE fail open (failurePolicy Ignore)', async () => {
      // Machine creation (scale-up, remediation) must not depend on hookkeeper; the audit reports what slipped through.
      const e = env();
      const machines = e.machines('machineApi');
      const { object: created, warnings } = await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'cp-during-outage', role: 'master' }),
      );
      assert.deepEqual(hooksOf(created, 'preDrain'), []);
      assert.deepEqual(warnings, []);
      assert.equal(await machines.exists(MACHINE_NAMESPACE, 'cp-during-outage'), true);
    });

    test('restarted: updates pass again, creates are mutated again, and removals are guarded again', async () => {
      const e = env();
      await e.hookkeeper.start();
      await waitForEnforcement(e.plane);
      const { object: patched } = await e.machines('admin').patch(MACHINE_NAMESPACE, 'cp-outage', HOOK_PATCH);
      assert.deepEqual(hooksOf(patched, 'preTerminate'), HOOK_PATCH[0]?.value);
      const { object: created } = await e
        .machines('machineApi')
        .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'cp-after-outage', role: 'master' }));
      assert.deepEqual(hooksOf(created, 'preDrain'), [ETCD_HOOK]);
      const refusal = await rejected(() =>
        e
          .machines('alice')
          .patch(MACHINE_NAMESPACE, 'cp-after-outage', removeHook(created, 'preDrain', ETCD_HOOK.name)),
      );
      assert.equal(refusal.message, DENIAL_PREFIX + ALICE_REMOVAL_DENIAL);
    });
  });
};
