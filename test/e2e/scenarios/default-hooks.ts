// Default hooks: control-plane Machines get the etcd quorum hook on create and on the update that relabels them
// control-plane (issue 29), never once deleting; other Machines are left alone; a control-plane Machine stored
// without the hook is named at its next update. In every admission mode.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ETCD_HOOK,
  MACHINE_FINALIZER,
  MACHINE_NAMESPACE,
  openshiftMachine,
} from '../../../testing/control-plane/machines.js';
import { warningTexts, type PatchOp } from '../../../testing/control-plane/kube.js';
import { webhookRuns } from '../harness/admission-modes.js';
import type { Scenario } from '../harness/suite.js';
import { hooksOf, metadataOf, removeHook } from './helpers.js';

const ROLE = 'machine.openshift.io~1cluster-api-machine-role';
const TYPE = 'machine.openshift.io~1cluster-api-machine-type';

/** What a Machine editor sends to make a worker a control-plane Machine: the role and type labels. */
function relabel(role: string): PatchOp[] {
  return [
    { op: 'replace', path: `/metadata/labels/${ROLE}`, value: role },
    { op: 'replace', path: `/metadata/labels/${TYPE}`, value: role },
  ];
}

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
      const gate = { name: 'DrainGate', owner: 'drain-team' };
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

    test('a worker Machine relabelled master by a Machine editor gets EtcdQuorumOperator on that update', async () => {
      const e = env();
      await e
        .machines('machineApi')
        .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'relabel-master', role: 'worker' }));
      const { object, warnings } = await e
        .machines('alice')
        .patch(MACHINE_NAMESPACE, 'relabel-master', relabel('master'));
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK]);
      assert.deepEqual(warnings, []);
      assert.deepEqual(hooksOf(await e.machines('alice').get(MACHINE_NAMESPACE, 'relabel-master'), 'preDrain'), [
        ETCD_HOOK,
      ]);
      // An unrelated update of it changes nothing and says nothing.
      const again = await e
        .machines('alice')
        .patch(MACHINE_NAMESPACE, 'relabel-master', [{ op: 'add', path: '/metadata/labels/team', value: 'infra' }]);
      assert.deepEqual([hooksOf(again.object, 'preDrain'), again.warnings], [[ETCD_HOOK], []]);
    });

    test('a deleting worker relabelled master gets no hook (the deletion freeze forbids new hooks); the relabel is kept', async () => {
      const e = env();
      const machines = e.machines('machineApi');
      await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'relabel-deleting', role: 'worker', finalizers: [MACHINE_FINALIZER] }),
      );
      await machines.delete(MACHINE_NAMESPACE, 'relabel-deleting');
      const { object } = await e.machines('alice').patch(MACHINE_NAMESPACE, 'relabel-deleting', relabel('arbiter'));
      assert.equal(typeof metadataOf(object)['deletionTimestamp'], 'string');
      assert.equal(
        (metadataOf(object)['labels'] as Record<string, string>)['machine.openshift.io/cluster-api-machine-role'],
        'arbiter',
      );
      assert.deepEqual(hooksOf(object, 'preDrain'), []);
      // Let it go.
      await machines.patch(MACHINE_NAMESPACE, 'relabel-deleting', [{ op: 'remove', path: '/metadata/finalizers' }]);
    });

    test('a control-plane Machine stored without its hook is named at its next update of what the rule reads (missing-default-hook, a warning)', async () => {
      const e = env();
      await e
        .machines('machineApi')
        .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'cp-slipped', role: 'master' }));
      const operator = e.machines('etcdOperator');
      const current = await operator.get(MACHINE_NAMESPACE, 'cp-slipped');
      // Its owner removes it: owner-only-removal's to judge, nothing else said.
      const removed = await operator.patch(
        MACHINE_NAMESPACE,
        'cp-slipped',
        removeHook(current, 'preDrain', ETCD_HOOK.name),
      );
      assert.deepEqual([hooksOf(removed.object, 'preDrain'), removed.warnings], [[], []]);
      const full =
        'missing-default-hook: spec.lifecycleHooks.preDrain: Required value: default hook "EtcdQuorumOperator" owned by "clusteroperator/etcd" is missing (policy rule "etcd-quorum-protection")';
      // A label update touches nothing a rule reads: neither the webhook nor the native policies review it, so the
      // warning about what is stored is not said there (docs/install.md#which-requests-reach-the-webhook).
      const labelled = await e
        .machines('alice')
        .patch(MACHINE_NAMESPACE, 'cp-slipped', [{ op: 'add', path: '/metadata/labels/team', value: 'infra' }]);
      assert.deepEqual(warningTexts(labelled.warnings), []);
      // An update of its hooks is sent, and named.
      const gate = { name: 'DrainGate', owner: 'drain-team' };
      const { object, warnings } = await e
        .machines('alice')
        .patch(MACHINE_NAMESPACE, 'cp-slipped', [
          { op: 'add', path: '/spec/lifecycleHooks/preTerminate', value: [gate] },
        ]);
      assert.deepEqual([hooksOf(object, 'preDrain'), hooksOf(object, 'preTerminate')], [[], [gate]]);
      const said = warningTexts(warnings);
      // The webhook cuts each warning to 120 characters ("..." ending it); the API server says it whole. In both
      // mode each engine warns once.
      const fromWebhook = said.filter((w) => w !== full);
      assert.equal(said.length, e.mode === 'both' ? 2 : 1, said.join('\n'));
      assert.equal(fromWebhook.length, webhookRuns(e.mode) ? 1 : 0, said.join('\n'));
      for (const w of fromWebhook) assert.ok(full.startsWith(w.replace(/\.\.\.$/, '')), w);
    });
  });
};
