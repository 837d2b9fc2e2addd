// End-to-end, the Machine API to Cluster API migration: OpenShift's TechPreview Machine CRD (status.authoritativeAPI)
// and Cluster API's Machine CRD from ../shared/crds, both copies of one Machine present, and hookkeeper as its
// ServiceAccount (--kubeconfig), so it can look the twin up. The synchronizer's mirror of an owner's removal passes;
// a direct removal by anyone else, and the synchronizer's removal of a hook the authoritative copy still has, do not.
// Webhook mode only: native mode cannot look the twin up (a declared divergence, test/native/differential.test.ts).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../testing/control-plane/control-plane.js';
import { registerWebhooks, startHookkeeper, waitForEnforcement } from '../../testing/control-plane/hookkeeper.js';
import { rawRequest } from '../../testing/control-plane/http.js';
import type { IdentityName } from '../../testing/control-plane/identities.js';
import {
  CAPI_MACHINES,
  DENIAL_PREFIX,
  OPENSHIFT_MACHINES,
  rejected,
  ResourceClient,
} from '../../testing/control-plane/kube.js';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../testing/control-plane/machines.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';
import { hooksOf, removeHook } from './scenarios/helpers.js';

const settings = readControlPlaneSettings();
const FILES = ['0000_10_machine-api_01_machines-TechPreviewNoUpgrade.crd.yaml', 'cluster.x-k8s.io_machines.yaml'].map(
  (f) => join(settings.sharedCrdDir, f),
);
const CAPI_NAMESPACE = 'openshift-cluster-api';
const NAME = 'migrated-worker-0';
/** A second hook of the registered etcd owner, so both removals below concern a protected owner. */
const CLEANUP = { name: 'etcd-cleanup', owner: ETCD_HOOK.owner };
const PRE_DRAIN_KEY = `pre-drain.delete.hook.machine.cluster.x-k8s.io/${ETCD_HOOK.name}`;
const pointer = (key: string): string => `/metadata/annotations/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** The Cluster API copy, v1beta2 (the CRD's storage version), carrying both hooks as the synchronizer mirrored them. */
function capiCopy(): Record<string, unknown> {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name: NAME,
      namespace: CAPI_NAMESPACE,
      labels: { 'cluster.x-k8s.io/cluster-name': 'e2e-7x2k9' },
      annotations: {
        [PRE_DRAIN_KEY]: ETCD_HOOK.owner,
        [`pre-terminate.delete.hook.machine.cluster.x-k8s.io/${CLEANUP.name}`]: CLEANUP.owner,
      },
    },
    spec: {
      clusterName: 'e2e-7x2k9',
      bootstrap: { dataSecretName: `${NAME}-bootstrap` },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'AWSMachine', name: NAME },
    },
  };
}

const missing = FILES.filter((f) => !existsSync(f));
if (missing.length > 0) {
  test(
    'the migration against kube-apiserver',
    settings.ci ? {} : { skip: `upstream CRDs not found: ${missing.join(', ')}` },
    () => assert.fail(`upstream CRDs not found: ${missing.join(', ')} (required when CI=true)`),
  );
} else {
  describe('the Machine API to Cluster API migration against kube-apiserver', () => {
    let plane: ControlPlane | undefined;
    const running = (): ControlPlane => {
      if (!plane) throw new Error('the control plane did not start (see the before hook)');
      return plane;
    };
    const machines = (as: IdentityName) => new ResourceClient(running().kubeConfig(as), OPENSHIFT_MACHINES);
    const capiMachines = (as: IdentityName) =>
      new ResourceClient(running().kubeConfig(as), { ...CAPI_MACHINES, version: 'v1beta2' });
    const removeFromMachineAPI = async (as: IdentityName, stage: 'preDrain' | 'preTerminate', hook: string) => {
      const current = await machines(as).get(MACHINE_NAMESPACE, NAME);
      return machines(as).patch(MACHINE_NAMESPACE, NAME, removeHook(current, stage, hook));
    };

    before(async () => {
      plane = await startControlPlane({ settings, crds: { name: 'migration CRDs', files: FILES } });
      const p = plane;
      try {
        await p
          .kubeConfig('admin')
          .makeApiClient(CoreV1Api)
          .createNamespace({ body: { metadata: { name: CAPI_NAMESPACE } } });
        const hookkeeper = await startHookkeeper(p, { args: ['--kubeconfig', await p.kubeConfigFile('hookkeeper')] });
        await registerWebhooks(p, hookkeeper);
        await waitForEnforcement(p);
        await machines('admin').create(
          MACHINE_NAMESPACE,
          openshiftMachine({ name: NAME, preDrain: [ETCD_HOOK], preTerminate: [CLEANUP] }),
        );
        // Cluster API is authoritative: what the migration controller writes, through the status subresource.
        const status = await rawRequest({
          url: `${p.server}/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_NAMESPACE}/machines/${NAME}/status`,
          method: 'PATCH',
          ca: p.caPem,
          token: p.identities.admin.token,
          contentType: 'application/merge-patch+json',
          body: { status: { authoritativeAPI: 'ClusterAPI' } },
          timeoutMs: 10_000,
        });
        assert.equal(status.status, 200, status.body);
        await capiMachines('admin').create(CAPI_NAMESPACE, capiCopy());
      } catch (err) {
        p.markFailed();
        process.stderr.write(`[e2e] migration: setup failed\n${p.logTails()}\n`);
        throw err;
      }
    });

    afterEach((t) => {
      if ((t as unknown as { passed?: boolean }).passed === false) {
        plane?.markFailed();
        process.stderr.write(`[e2e] migration: "${t.name}" failed; logs so far:\n${plane?.logTails() ?? ''}\n`);
      }
    });

    after(async () => {
      await plane?.stop();
    });

    test('anyone else removing a hook from the non-authoritative Machine API copy is refused', async () => {
      const refusal = await rejected(() => removeFromMachineAPI('alice', 'preDrain', ETCD_HOOK.name));
      assert.equal(refusal.by, 'webhook', refusal.message);
      assert.ok(refusal.message.startsWith(`${DENIAL_PREFIX}spec.lifecycleHooks.preDrain[0]: Forbidden: "alice"`));
    });

    test('the synchronizer removing a hook the authoritative copy still has is refused', async () => {
      const refusal = await rejected(() => removeFromMachineAPI('capiSync', 'preTerminate', CLEANUP.name));
      assert.equal(refusal.by, 'webhook', refusal.message);
      assert.match(refusal.message, /"system:serviceaccount:openshift-cluster-api:capi-controllers" may not remove/);
      const stored = await machines('admin').get(MACHINE_NAMESPACE, NAME);
      assert.deepEqual(hooksOf(stored, 'preTerminate'), [CLEANUP]);
    });

    test("the owner removes its hook on the Cluster API copy; the synchronizer's mirror of it passes", async () => {
      await capiMachines('etcdOperator').patch(CAPI_NAMESPACE, NAME, [
        { op: 'test', path: pointer(PRE_DRAIN_KEY), value: ETCD_HOOK.owner },
        { op: 'remove', path: pointer(PRE_DRAIN_KEY) },
      ]);
      const { object } = await removeFromMachineAPI('capiSync', 'preDrain', ETCD_HOOK.name);
      assert.deepEqual(hooksOf(object, 'preDrain'), []);
      assert.deepEqual(hooksOf(object, 'preTerminate'), [CLEANUP], 'the other hook stays');
    });
  });
}
