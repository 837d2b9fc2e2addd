// Cluster API Clusters (upstream's CRD): upgrade hooks are annotations (before-upgrade.hook.cluster.cluster.x-k8s.io/
// <name>: <owner>) and get the Machines' owner-only removal; the Cluster is made afresh in each admission mode.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import { CAPI_CLUSTERS, rejected, ResourceClient, type PatchOp } from '../../../testing/control-plane/kube.js';
import type { IdentityName } from '../../../testing/control-plane/identities.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { assertOurDenial, metadataOf } from './helpers.js';

const NAMESPACE = 'capi-e2e';
const NAME = 'upgrade-hooks';
const OWNER = 'clusteroperator/etcd';
const KEY = 'before-upgrade.hook.cluster.cluster.x-k8s.io/etcd-backup';
const REMOVE: PatchOp[] = [
  { op: 'test', path: `/metadata/annotations/${KEY.replace('/', '~1')}`, value: OWNER },
  { op: 'remove', path: `/metadata/annotations/${KEY.replace('/', '~1')}` },
];

const clusters = (env: E2EEnv, as: IdentityName): ResourceClient =>
  new ResourceClient(env.plane.kubeConfig(as), CAPI_CLUSTERS);

const annotationsOf = (obj: Record<string, unknown>): Record<string, string> =>
  (metadataOf(obj)['annotations'] ?? {}) as Record<string, string>;

export const capiClusterScenarios: Scenario = (env) => {
  describe('Cluster API Cluster upgrade hook annotations', () => {
    before(async () => {
      const admin = env().plane.kubeConfig('admin');
      await admin
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: NAMESPACE } } })
        .catch((err: unknown) => {
          if (!(err instanceof ApiException && err.code === 409)) throw err;
        });
      // A previous mode's Cluster lost its hook to the owner: made again, with it (no finalizer, so gone at once).
      const own = clusters(env(), 'admin');
      if (await own.exists(NAMESPACE, NAME)) await own.delete(NAMESPACE, NAME);
      await own.create(NAMESPACE, {
        apiVersion: `${CAPI_CLUSTERS.group}/${CAPI_CLUSTERS.version}`,
        kind: 'Cluster',
        metadata: { name: NAME, namespace: NAMESPACE, annotations: { [KEY]: OWNER } },
        spec: { paused: true },
      });
    });

    test("an ordinary user removing another owner's upgrade hook is denied by hookkeeper", async () => {
      const refusal = await rejected(() => clusters(env(), 'alice').patch(NAMESPACE, NAME, REMOVE));
      assertOurDenial(env(), refusal, [
        `metadata.annotations[${KEY}]: Forbidden: "alice" may not remove beforeUpgrade hook ` +
          '"etcd-backup" owned by "clusteroperator/etcd"; only its owner may: ' +
          'system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
          'to let "alice" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove ' +
          '--resource=hookowners.hookkeeper.io --resource-name=clusteroperator/etcd && kubectl create clusterrolebinding ' +
          'hookowner-clusteroperator-etcd-alice --clusterrole=hookowner-clusteroperator-etcd --user=alice',
      ]);
      assert.equal(annotationsOf(await clusters(env(), 'admin').get(NAMESPACE, NAME))[KEY], OWNER);
    });

    test('its owner, the etcd operator, removes it', async () => {
      const { object } = await clusters(env(), 'etcdOperator').patch(NAMESPACE, NAME, REMOVE);
      assert.equal(annotationsOf(object)[KEY], undefined);
    });
  });
};
