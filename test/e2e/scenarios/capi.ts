// Cluster API Machines (v1beta1): hooks are annotations, and the same owner-only removal applies to them.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import { capiMachine, ETCD_HOOK } from '../../../testing/control-plane/machines.js';
import { rejected, type PatchOp } from '../../../testing/control-plane/kube.js';
import type { Scenario } from '../harness/suite.js';
import { assertOurDenial, metadataOf } from './helpers.js';

const NAMESPACE = 'capi-e2e';
const ETCD_ANNOTATION = `pre-drain.delete.hook.machine.cluster.x-k8s.io/${ETCD_HOOK.name}`;
const REMOVE_ETCD_ANNOTATION: PatchOp[] = [
  { op: 'test', path: `/metadata/annotations/${ETCD_ANNOTATION.replace('/', '~1')}`, value: ETCD_HOOK.owner },
  { op: 'remove', path: `/metadata/annotations/${ETCD_ANNOTATION.replace('/', '~1')}` },
];

function annotationsOf(obj: Record<string, unknown>): Record<string, string> {
  return (metadataOf(obj)['annotations'] ?? {}) as Record<string, string>;
}

export const capiScenarios: Scenario = (env) => {
  describe('Cluster API Machine hook annotations', () => {
    before(async () => {
      // Created once; the groups of a later admission mode find it there.
      await env()
        .plane.kubeConfig('admin')
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: NAMESPACE } } })
        .catch((err: unknown) => {
          if (!(err instanceof ApiException && err.code === 409)) throw err;
        });
      for (const name of ['capi-cp-alice', 'capi-cp-etcd']) {
        await env()
          .capiMachines('machineApi')
          .create(
            NAMESPACE,
            capiMachine({ name, namespace: NAMESPACE, annotations: { [ETCD_ANNOTATION]: ETCD_HOOK.owner } }),
          );
      }
    });

    test('an ordinary user removing the etcd hook annotation is denied by hookkeeper', async () => {
      const machines = env().capiMachines('alice');
      const refusal = await rejected(() => machines.patch(NAMESPACE, 'capi-cp-alice', REMOVE_ETCD_ANNOTATION));
      assertOurDenial(env(), refusal, [
        `metadata.annotations[${ETCD_ANNOTATION}]: Forbidden: "alice" may not remove preDrain hook ` +
          '"EtcdQuorumOperator" owned by "clusteroperator/etcd"; only its owner may: ' +
          'system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
          'to let "alice" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove ' +
          '--resource=hookowners.hookkeeper.io --resource-name=clusteroperator/etcd && kubectl create clusterrolebinding ' +
          'hookowner-clusteroperator-etcd-alice --clusterrole=hookowner-clusteroperator-etcd --user=alice',
      ]);
      assert.equal(annotationsOf(await machines.get(NAMESPACE, 'capi-cp-alice'))[ETCD_ANNOTATION], ETCD_HOOK.owner);
    });

    test('the etcd operator removing it is allowed', async () => {
      const { object } = await env()
        .capiMachines('etcdOperator')
        .patch(NAMESPACE, 'capi-cp-etcd', REMOVE_ETCD_ANNOTATION);
      assert.equal(annotationsOf(object)[ETCD_ANNOTATION], undefined);
    });
  });
};
