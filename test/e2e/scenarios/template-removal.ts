// A hook removed from a MachineSet's template (template-hook-removed, issue #35 item 4): every Machine the set makes
// afterwards lacks it, so a real UPDATE (a PUT, as `kubectl replace` and `kubectl apply` send one) that removes it
// comes back with the warning in the response's Warning headers, in every admission mode; the hook's owner removes
// it without a word.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { KubeObject } from '../../../src/core/types.js';
import { webhookRuns } from '../harness/admission-modes.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachineSet } from '../../../testing/control-plane/machines.js';
import { warningTexts } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { hooksOf } from './helpers.js';

const TEMPLATE = ['spec', 'template', 'spec'] as const;
/** Lets the etcd operator, the etcd hook's registered owner, edit MachineSets here (the suite's RBAC does not). */
const ROLE = 'hookkeeper-e2e:etcd-operator-machinesets';

/** The stored MachineSet with its template's preDrain hooks emptied, as a client PUTs it back. */
function withoutPreDrain(stored: KubeObject): KubeObject {
  const copy = structuredClone(stored);
  const spec = (copy['spec'] as { template: { spec: { lifecycleHooks: Record<string, unknown> } } }).template.spec;
  spec.lifecycleHooks['preDrain'] = [];
  return copy;
}

/** The warning every mode gives, whole (the webhook cuts its own to 120 characters, "..." ending it). */
function assertWarned(e: E2EEnv, warnings: readonly string[], full: string): void {
  const said = warningTexts(warnings);
  // In both mode each engine warns once: the policy whole, the webhook cut.
  assert.equal(said.length, e.mode === 'both' ? 2 : 1, said.join('\n'));
  const fromWebhook = said.filter((w) => w !== full);
  assert.equal(fromWebhook.length, webhookRuns(e.mode) ? 1 : 0, said.join('\n'));
  for (const w of fromWebhook) assert.ok(w.endsWith('...') && full.startsWith(w.slice(0, -3)), w);
}

export const templateRemovalScenarios: Scenario = (env) => {
  describe('hooks removed from a MachineSet template', () => {
    const rbac = () => env().plane.kubeConfig('admin').makeApiClient(RbacAuthorizationV1Api);

    before(async () => {
      // system:serviceaccount:<namespace>:<name>
      const [, , namespace = '', name = ''] = env().plane.identities.etcdOperator.username.split(':');
      const meta = { name: ROLE, namespace: MACHINE_NAMESPACE };
      await rbac().createNamespacedRole({
        namespace: MACHINE_NAMESPACE,
        body: {
          metadata: meta,
          rules: [
            {
              apiGroups: ['machine.openshift.io'],
              resources: ['machinesets'],
              verbs: ['get', 'create', 'update', 'patch'],
            },
          ],
        },
      });
      await rbac().createNamespacedRoleBinding({
        namespace: MACHINE_NAMESPACE,
        body: {
          metadata: meta,
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ROLE },
          subjects: [{ kind: 'ServiceAccount', namespace, name }],
        },
      });
      // RBAC's informers see the binding a moment later: until then the GET is refused (403), not answered 404.
      await pollUntil('RBAC to let the etcd operator read MachineSets', 30_000, async () => {
        try {
          await env().machineSets('etcdOperator').exists(MACHINE_NAMESPACE, 'tpl-none');
          return true;
        } catch {
          return undefined;
        }
      });
    });

    after(async () => {
      await rbac().deleteNamespacedRoleBinding({ name: ROLE, namespace: MACHINE_NAMESPACE });
      await rbac().deleteNamespacedRole({ name: ROLE, namespace: MACHINE_NAMESPACE });
    });

    test("the machine-api controllers remove an owner's hook: stored, and the client is warned", async () => {
      const e = env();
      const sets = e.machineSets('machineApi');
      const gate = { name: 'example.com/DrainGate', owner: 'drain-team' };
      await sets.create(MACHINE_NAMESPACE, openshiftMachineSet({ name: 'tpl-removed', preDrain: [gate] }));
      const { object, warnings } = await sets.replace(
        MACHINE_NAMESPACE,
        withoutPreDrain(await sets.get(MACHINE_NAMESPACE, 'tpl-removed')),
      );
      assert.deepEqual(hooksOf(object, 'preDrain', TEMPLATE), []);
      assertWarned(
        e,
        warnings,
        'template-hook-removed: every Machine this MachineSet makes from now on lacks preDrain hook ' +
          '"example.com/DrainGate" of "drain-team": removed from its template',
      );
    });

    test('break-glass is not the owner: the etcd hook removed by a system:masters admin is warned too', async () => {
      const e = env();
      const owner = e.machineSets('etcdOperator');
      await owner.create(MACHINE_NAMESPACE, openshiftMachineSet({ name: 'tpl-admin', preDrain: [ETCD_HOOK] }));
      const admin = e.machineSets('admin');
      const { warnings } = await admin.replace(
        MACHINE_NAMESPACE,
        withoutPreDrain(await admin.get(MACHINE_NAMESPACE, 'tpl-admin')),
      );
      assertWarned(
        e,
        warnings,
        'template-hook-removed: every Machine this MachineSet makes from now on lacks preDrain hook ' +
          '"EtcdQuorumOperator" of "clusteroperator/etcd": removed from its template',
      );
    });

    test('the etcd operator removes its own hook from the template: stored, no warning', async () => {
      const owner = env().machineSets('etcdOperator');
      const created = await owner.create(
        MACHINE_NAMESPACE,
        openshiftMachineSet({ name: 'tpl-owner', preDrain: [ETCD_HOOK] }),
      );
      // The owner adds its own hook to a template without a word, too.
      assert.deepEqual(warningTexts(created.warnings), []);
      const { object, warnings } = await owner.replace(
        MACHINE_NAMESPACE,
        withoutPreDrain(await owner.get(MACHINE_NAMESPACE, 'tpl-owner')),
      );
      assert.deepEqual(hooksOf(object, 'preDrain', TEMPLATE), []);
      assert.deepEqual(warningTexts(warnings), []);
    });
  });
};
