// Worked example 2 (docs/child-resources.md): ConfigMaps and Services of a Crunchy PostgresCluster, policy
// test/fixtures/children-database-policy.yaml: the cluster becomes their controller (blockOwnerDeletion), a
// reference PGO already set is kept, another controller is refused, and a child of a missing cluster is admitted
// with a warning and no reference.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { shortWarning } from '../../../src/admission/response.js';
import type { KubeObject } from '../../../src/core/types.js';
import { PG_FINALIZER, pgConfigMap, pgService } from '../../fixtures/children.js';
import { placed, postgresCluster } from '../../fixtures/e2e-children.js';
import { rejected, type Resource } from '../../../testing/control-plane/kube.js';
import { CONFIG_MAPS, SERVICES } from '../../../testing/control-plane/objects.js';
import type { E2EEnv } from '../harness/suite.js';
import { finalizerRemovalTests, finalizersOf } from './children-finalizer.js';
import { CHILD_DENIAL_PREFIX, waitForChildWebhooks, type ChildEnv, type ChildExample } from './children-setup.js';
import { metadataOf } from './helpers.js';

const NAMESPACE = 'children-pg-e2e';
const CLUSTER_LABEL = 'postgres-operator.crunchydata.com/cluster';
export const POSTGRES_CLUSTERS: Resource = {
  group: 'postgres-operator.crunchydata.com',
  version: 'v1beta1',
  plural: 'postgresclusters',
};

export const PG_EXAMPLE: ChildExample = {
  id: 'pg',
  policyFile: 'children-database-policy.yaml',
  namespace: NAMESPACE,
  parent: POSTGRES_CLUSTERS,
  controller: 'pgo',
};

function service(name: string, ownerReferences: unknown[] = []): KubeObject {
  return placed(pgService({ ownerReferences }), NAMESPACE, name);
}

export function databaseScenarios(env: () => E2EEnv, ctx: () => ChildEnv): void {
  describe('worked example 2: PostgresCluster, its ConfigMaps and Services', () => {
    let hippoUid = '';
    const hippoRef = (): Record<string, unknown> => ({
      apiVersion: 'postgres-operator.crunchydata.com/v1beta1',
      kind: 'PostgresCluster',
      name: 'hippo',
      uid: hippoUid,
      controller: true,
      blockOwnerDeletion: true,
    });

    before(async () => {
      const x = ctx();
      hippoUid = await x.createParent(postgresCluster({ name: 'hippo', namespace: NAMESPACE }));
      // Enforced once the mutating webhook adds hippo's finalizer to a dry-run ConfigMap.
      await waitForChildWebhooks(x, async () => {
        const { object } = await x
          .objects('pgo', CONFIG_MAPS)
          .create(NAMESPACE, placed(pgConfigMap({ ownerReferences: [] }), NAMESPACE, 'probe'), { dryRun: true });
        return finalizersOf(object).includes(PG_FINALIZER);
      });
    });

    test('PGO creates a Service with no owner: the PostgresCluster becomes its controller, with its uid, and the finalizer is added', async () => {
      const x = ctx();
      await x.objects('pgo', SERVICES).create(NAMESPACE, service('hippo-primary'));
      const stored = await x.objects('pgo', SERVICES).get(NAMESPACE, 'hippo-primary');
      assert.deepEqual(metadataOf(stored)['ownerReferences'], [hippoRef()]);
      assert.deepEqual(finalizersOf(stored), [PG_FINALIZER]);
    });

    test("a ConfigMap PGO already made the cluster's controlled child keeps that one reference and gets the finalizer", async () => {
      const x = ctx();
      const { object, warnings } = await x
        .objects('pgo', CONFIG_MAPS)
        .create(NAMESPACE, placed(pgConfigMap({ ownerReferences: [hippoRef()] }), NAMESPACE));
      assert.deepEqual(metadataOf(object)['ownerReferences'], [hippoRef()]);
      assert.deepEqual(finalizersOf(object), [PG_FINALIZER]);
      assert.deepEqual(warnings, []);
    });

    test('a Service already controlled by something else is denied by our webhook (onExistingController: deny)', async () => {
      const x = ctx();
      const other = {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        name: 'hippo-instance1-7bq4',
        uid: '5b0f3c2a-8d1e-4f6a-9b7c-0d1e2f3a4b5c',
        controller: true,
        blockOwnerDeletion: false,
      };
      const services = x.objects('pgo', SERVICES);
      const refusal = await rejected(() => services.create(NAMESPACE, service('hippo-replicas', [other])));
      assert.equal(refusal.by, 'webhook', refusal.message);
      assert.equal(
        refusal.message,
        `${CHILD_DENIAL_PREFIX}metadata.ownerReferences[0]: Forbidden: Service "hippo-replicas" is already controlled by ` +
          `StatefulSet "hippo-instance1-7bq4"; policy rule "postgrescluster-configmaps-services" would make PostgresCluster "hippo" in namespace ` +
          `"${NAMESPACE}" its controller (onExistingController: deny)`,
      );
      assert.equal(await services.exists(NAMESPACE, 'hippo-replicas'), false);
    });

    test('a ConfigMap of a cluster that does not exist yet is admitted with a warning, without reference or finalizer (onMissingParent: warn)', async () => {
      const x = ctx();
      const body = placed(pgConfigMap({ cluster: 'restored', ownerReferences: [] }), NAMESPACE);
      const { object, warnings } = await x.objects('pgo', CONFIG_MAPS).create(NAMESPACE, body);
      assert.deepEqual(metadataOf(object)['ownerReferences'], undefined);
      assert.deepEqual(finalizersOf(object), []);
      assert.deepEqual(warnings, [
        shortWarning(
          `child-parent: metadata.labels[${CLUSTER_LABEL}]: Not found: parent PostgresCluster "restored" in namespace ` +
            `"${NAMESPACE}" does not exist (policy rule "postgrescluster-configmaps-services": onMissingParent warn)`,
        ),
      ]);
    });

    test('blockOwnerDeletion needs update on postgresclusters/finalizers: without it the API server refuses the child hookkeeper mutated', async () => {
      // virt-controller may create Services but not update PostgresClusters' finalizers (docs/child-resources.md,
      // "What to add to the cluster", item 3).
      // It sends no reference: OwnerReferencesPermissionEnforcement (a validating plugin) judges the one our mutating webhook added.
      const refusal = await rejected(() =>
        ctx().objects('virtController', SERVICES).create(NAMESPACE, service('hippo-pgbouncer')),
      );
      assert.equal(refusal.code, 403);
      assert.match(
        refusal.message,
        /^services "hippo-pgbouncer" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on/,
      );
    });

    finalizerRemovalTests(env, ctx, {
      child: SERVICES,
      kind: 'Service',
      async create(x, name) {
        return (await x.objects('pgo', SERVICES).create(NAMESPACE, service(`hippo-${name}`))).object;
      },
    });
  });
}
