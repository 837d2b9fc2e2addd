// Owner-only removal (the webhook or the native policies): only the etcd operator removes the etcd hook; break-glass
// admins may, with a warning.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ETCD_HOOK,
  MACHINE_NAMESPACE,
  openshiftMachine,
  openshiftMachineSet,
} from '../../../testing/control-plane/machines.js';
import { CREATE_DENIAL_PREFIX, rejected, warningTexts } from '../../../testing/control-plane/kube.js';
import { grantCommand } from '../../../src/core/ownership.js';
import { webhookRuns } from '../harness/admission-modes.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { assertOurDenial, hooksOf, removeHook } from './helpers.js';

/** A control-plane Machine as the machine-api controllers create it: it comes back with the etcd hook. */
export async function controlPlaneMachine(env: E2EEnv, name: string): Promise<void> {
  const { object } = await env
    .machines('machineApi')
    .create(MACHINE_NAMESPACE, openshiftMachine({ name, role: 'master' }));
  assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK], 'the etcd hook was injected');
}

/** hookkeeper's denial when alice removes the etcd hook, after the API server's prefix. */
export const ALICE_REMOVAL_DENIAL =
  'spec.lifecycleHooks.preDrain[0]: Forbidden: "alice" may not remove preDrain hook ' +
  '"EtcdQuorumOperator" owned by "clusteroperator/etcd"; only its owner may: ' +
  'system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
  'to let "alice" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove ' +
  '--resource=hookowners.hookkeeper.io --resource-name=clusteroperator/etcd && kubectl create clusterrolebinding ' +
  'hookowner-clusteroperator-etcd-alice --clusterrole=hookowner-clusteroperator-etcd --user=alice';

export const ownerOnlyRemovalScenarios: Scenario = (env) => {
  describe('owner-only removal of the etcd hook', () => {
    test('an ordinary user removing it is denied by hookkeeper, and the hook stays', async () => {
      const e = env();
      await controlPlaneMachine(e, 'cp-removal-alice');
      const alice = e.machines('alice');
      const current = await alice.get(MACHINE_NAMESPACE, 'cp-removal-alice');
      const refusal = await rejected(() =>
        alice.patch(MACHINE_NAMESPACE, 'cp-removal-alice', removeHook(current, 'preDrain', ETCD_HOOK.name)),
      );
      assertOurDenial(e, refusal, [ALICE_REMOVAL_DENIAL]);
      assert.deepEqual(hooksOf(await alice.get(MACHINE_NAMESPACE, 'cp-removal-alice'), 'preDrain'), [ETCD_HOOK]);
    });

    test('an ordinary user changing its owner is denied too', async () => {
      const e = env();
      await controlPlaneMachine(e, 'cp-owner-alice');
      const refusal = await rejected(() =>
        e.machines('alice').patch(MACHINE_NAMESPACE, 'cp-owner-alice', [
          { op: 'test', path: '/spec/lifecycleHooks/preDrain/0/name', value: ETCD_HOOK.name },
          { op: 'replace', path: '/spec/lifecycleHooks/preDrain/0/owner', value: 'alice' },
        ]),
      );
      // Two violations: the webhook reports both, a policy the first that failed.
      assertOurDenial(e, refusal, [
        'spec.lifecycleHooks.preDrain[0].owner: Invalid value: "alice": hook name "EtcdQuorumOperator" is reserved ' +
          'for owner "clusteroperator/etcd"',
        'spec.lifecycleHooks.preDrain[0]: Forbidden: "alice" may not change the owner of preDrain hook ' +
          '"EtcdQuorumOperator" owned by "clusteroperator/etcd"; only its owner may: ' +
          'system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
          'to let "alice" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove ' +
          '--resource=hookowners.hookkeeper.io --resource-name=clusteroperator/etcd && kubectl create clusterrolebinding ' +
          'hookowner-clusteroperator-etcd-alice --clusterrole=hookowner-clusteroperator-etcd --user=alice',
      ]);
    });

    test('the etcd operator service account removes it: allowed, no warning', async () => {
      const e = env();
      await controlPlaneMachine(e, 'cp-removal-etcd');
      const operator = e.machines('etcdOperator');
      const current = await operator.get(MACHINE_NAMESPACE, 'cp-removal-etcd');
      const { object, warnings } = await operator.patch(
        MACHINE_NAMESPACE,
        'cp-removal-etcd',
        removeHook(current, 'preDrain', ETCD_HOOK.name),
      );
      assert.deepEqual(hooksOf(object, 'preDrain'), []);
      assert.deepEqual(warnings, []);
      assert.deepEqual(hooksOf(await operator.get(MACHINE_NAMESPACE, 'cp-removal-etcd'), 'preDrain'), []);
    });

    test('a system:masters admin removes it (break-glass): allowed, and the client receives the warning', async () => {
      const e = env();
      await controlPlaneMachine(e, 'cp-removal-admin');
      const admin = e.machines('admin');
      const current = await admin.get(MACHINE_NAMESPACE, 'cp-removal-admin');
      const { object, warnings } = await admin.patch(
        MACHINE_NAMESPACE,
        'cp-removal-admin',
        removeHook(current, 'preDrain', ETCD_HOOK.name),
      );
      assert.deepEqual(hooksOf(object, 'preDrain'), []);
      assert.deepEqual(warningTexts(warnings), [
        `break-glass: ${e.plane.identities.admin.username} may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited`,
      ]);
    });

    test('break-glass removal from both stages: one warning per hook, both received', async () => {
      const e = env();
      await e
        .machines('machineApi')
        .create(
          MACHINE_NAMESPACE,
          openshiftMachine({ name: 'cp-removal-both', role: 'master', preTerminate: [ETCD_HOOK] }),
        );
      const admin = e.machines('admin');
      const current = await admin.get(MACHINE_NAMESPACE, 'cp-removal-both');
      assert.deepEqual([hooksOf(current, 'preDrain'), hooksOf(current, 'preTerminate')], [[ETCD_HOOK], [ETCD_HOOK]]);
      const { warnings } = await admin.patch(MACHINE_NAMESPACE, 'cp-removal-both', [
        ...removeHook(current, 'preDrain', ETCD_HOOK.name),
        ...removeHook(current, 'preTerminate', ETCD_HOOK.name),
      ]);
      const who = e.plane.identities.admin.username;
      const perHook = [
        `break-glass: ${who} may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited`,
        `break-glass: ${who} may remove preTerminate hook EtcdQuorumOperator of clusteroperator/etcd; audited`,
      ];
      const got = warningTexts(warnings);
      if (!webhookRuns(e.mode)) {
        // A validation warns at most once per request, not once per hook (render's notes say so): some of the
        // webhook's warnings, in its words.
        assert.ok(got.length > 0 && got.every((w) => perHook.includes(w)), JSON.stringify(got));
        assert.ok(
          e.native.notes.some((n) => /warnings come one per validation/.test(n)),
          'render declares the per-validation warnings',
        );
      } else {
        // The webhook warns for each hook (in both mode too, where the policy's words are the same).
        assert.deepEqual(got, perHook);
      }
    });
  });

  // Squatting (issue #34): a hook under the etcd owner's name makes a Machine's deletion wait for the etcd operator.
  describe("adding a hook under the etcd owner's name", () => {
    const JUNK = { name: 'Junk', owner: ETCD_HOOK.owner };
    const squat = (user: string, path = 'spec.lifecycleHooks.preTerminate[0]'): string =>
      `${path}: Forbidden: "${user}" may not add preTerminate hook "Junk" owned by "clusteroperator/etcd": ` +
      'a Machine carrying it waits for that owner; only its owner may: ' +
      'system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
      `to let "${user}" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove ` +
      '--resource=hookowners.hookkeeper.io --resource-name=clusteroperator/etcd && kubectl create clusterrolebinding ' +
      `hookowner-clusteroperator-etcd-${user} --clusterrole=hookowner-clusteroperator-etcd --user=${user}`;
    const addJunk = [{ op: 'add' as const, path: '/spec/lifecycleHooks', value: { preTerminate: [JUNK] } }];
    const worker = async (e: E2EEnv, name: string): Promise<void> => {
      await e.machines('machineApi').create(MACHINE_NAMESPACE, openshiftMachine({ name }));
    };

    test('a Machine editor adding it to an existing Machine is denied by hookkeeper, and nothing is added', async () => {
      const e = env();
      await worker(e, 'squat-alice');
      const alice = e.machines('alice');
      const refusal = await rejected(() => alice.patch(MACHINE_NAMESPACE, 'squat-alice', addJunk));
      assertOurDenial(e, refusal, [squat('alice')]);
      assert.deepEqual(hooksOf(await alice.get(MACHINE_NAMESPACE, 'squat-alice'), 'preTerminate'), []);
    });

    test('the etcd operator adds it: allowed, no warning', async () => {
      const e = env();
      await worker(e, 'squat-etcd');
      const { object, warnings } = await e.machines('etcdOperator').patch(MACHINE_NAMESPACE, 'squat-etcd', addJunk);
      assert.deepEqual(hooksOf(object, 'preTerminate'), [JUNK]);
      assert.deepEqual(warnings, []);
    });

    test('break-glass adds it: allowed, and the client receives the warning', async () => {
      const e = env();
      await worker(e, 'squat-admin');
      const { object, warnings } = await e.machines('admin').patch(MACHINE_NAMESPACE, 'squat-admin', addJunk);
      assert.deepEqual(hooksOf(object, 'preTerminate'), [JUNK]);
      assert.deepEqual(warningTexts(warnings), [
        `break-glass: ${e.plane.identities.admin.username} may add preTerminate hook Junk of clusteroperator/etcd; audited`,
      ]);
    });

    test('a MachineSet template carrying it is denied by hookkeeper: the Machines it makes would carry it', async () => {
      const e = env();
      const refusal = await rejected(() =>
        e
          .machineSets('machineApi')
          .create(MACHINE_NAMESPACE, openshiftMachineSet({ name: 'ms-squat', preTerminate: [JUNK] }), { dryRun: true }),
      );
      const who = e.plane.identities.machineApi.username;
      const path = 'spec.template.spec.lifecycleHooks.preTerminate[0]';
      // The grant names the service account as --serviceaccount=<namespace>:<name>.
      const grant = grantCommand(ETCD_HOOK.owner, { username: who, groups: [] });
      assertOurDenial(
        e,
        refusal,
        [squat(who, path).replace(/kubectl create clusterrole .*$/, grant)],
        CREATE_DENIAL_PREFIX,
      );
    });
  });
};
