// End-to-end, the Machine API to Cluster API migration: OpenShift's TechPreview Machine CRD (status.authoritativeAPI)
// and Cluster API's Machine CRD from ../shared/crds, both copies of one Machine present, and hookkeeper as its
// ServiceAccount (--kubeconfig), so it can look the twin up. The synchronizer's mirror of an owner's removal passes;
// a direct removal by anyone else, and the synchronizer's removal of a hook the authoritative copy still has, do not;
// nor does a copy made without its twin's hooks by a non-owner, the two ways of pre-arranging a mirror (issue #34.4).
// The webhook first; then, last, the native policies, which cannot look the twin up: no mirror route, and no judging
// of such a copy (a declared divergence, src/compilers/native/notes.ts).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { AuthorizationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from '../../testing/control-plane/control-plane.js';
import { registerWebhooks, startHookkeeper, waitForEnforcement } from '../../testing/control-plane/hookkeeper.js';
import { createRaw, rawRequest } from '../../testing/control-plane/http.js';
import { pollUntil } from '../../testing/control-plane/processes.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
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
function capiCopy(
  name = NAME,
  annotations: Record<string, string> = {
    [PRE_DRAIN_KEY]: ETCD_HOOK.owner,
    [`pre-terminate.delete.hook.machine.cluster.x-k8s.io/${CLEANUP.name}`]: CLEANUP.owner,
  },
): Record<string, unknown> {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name,
      namespace: CAPI_NAMESPACE,
      labels: { 'cluster.x-k8s.io/cluster-name': 'e2e-7x2k9' },
      annotations,
    },
    spec: {
      clusterName: 'e2e-7x2k9',
      bootstrap: { dataSecretName: `${name}-bootstrap` },
      infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'AWSMachine', name },
    },
  };
}

/** A Machine editor who may also create and delete Machines (the attacker): more than the suite's alice. */
async function letAliceCreateAndDelete(p: ControlPlane): Promise<void> {
  const rbac = p.kubeConfig('admin').makeApiClient(RbacAuthorizationV1Api);
  const name = 'hookkeeper-e2e:machine-creator';
  const groups = ['machine.openshift.io', 'cluster.x-k8s.io'];
  await rbac.createClusterRole({
    body: { metadata: { name }, rules: [{ apiGroups: groups, resources: ['machines'], verbs: ['create', 'delete'] }] },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: p.identities.alice.username }],
    },
  });
  // The RBAC authorizer sees the binding through its informer: wait until it answers yes for both groups.
  const authz = p.kubeConfig('admin').makeApiClient(AuthorizationV1Api);
  for (let i = 0; i < 100; i++) {
    const answers = await Promise.all(
      groups.map((group) =>
        authz.createSubjectAccessReview({
          body: {
            spec: {
              user: p.identities.alice.username,
              resourceAttributes: { group, resource: 'machines', verb: 'create', namespace: CAPI_NAMESPACE },
            },
          },
        }),
      ),
    );
    if (answers.every((a) => a.status?.allowed === true)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('alice was never allowed to create Machines');
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
    const removeFromMachineAPI = async (
      as: IdentityName,
      stage: 'preDrain' | 'preTerminate',
      hook: string,
      name = NAME,
    ) => {
      const current = await machines(as).get(MACHINE_NAMESPACE, name);
      return machines(as).patch(MACHINE_NAMESPACE, name, removeHook(current, stage, hook));
    };
    /** status.authoritativeAPI as the migration controller writes it, through the status subresource. */
    const settle = async (name: string, authoritativeAPI: 'MachineAPI' | 'ClusterAPI' | 'Migrating') => {
      const p = running();
      const res = await rawRequest({
        url: `${p.server}/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_NAMESPACE}/machines/${name}/status`,
        method: 'PATCH',
        ca: p.caPem,
        token: p.identities.admin.token,
        contentType: 'application/merge-patch+json',
        body: { status: { authoritativeAPI } },
        timeoutMs: 10_000,
      });
      assert.equal(res.status, 200, res.body);
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
        await letAliceCreateAndDelete(p);
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

    // Issue #34.4: the mirror's proof (the authoritative copy no longer has the hook) must not be something a non-owner
    // can arrange. A copy made without the hooks its twin carries is refused, so no such copy can become authoritative.
    test('a Cluster API copy re-created without its twin’s hook by a non-owner is refused; the mirror stays closed', async () => {
      const name = 'migrated-master-1';
      await machines('admin').create(MACHINE_NAMESPACE, openshiftMachine({ name, preDrain: [ETCD_HOOK] }));
      await settle(name, 'MachineAPI');
      await capiMachines('admin').create(CAPI_NAMESPACE, capiCopy(name, { [PRE_DRAIN_KEY]: ETCD_HOOK.owner }));
      // The copy has no finalizer here, so alice's DELETE removes it at once (with one, controller-finalizer holds it).
      await capiMachines('alice').delete(CAPI_NAMESPACE, name);
      assert.equal(await capiMachines('admin').exists(CAPI_NAMESPACE, name), false);

      const refusal = await rejected(() => capiMachines('alice').create(CAPI_NAMESPACE, capiCopy(name, {})));
      assert.equal(refusal.by, 'webhook', refusal.message);
      assert.match(refusal.message, /"alice" may not create .*without hook "EtcdQuorumOperator"/);

      // The rest of the attack: spec.authoritativeAPI flipped, status Migrating; the synchronizer finds no copy that
      // lacks the hook, so its removal is any non-owner's.
      await machines('alice').mergePatch(MACHINE_NAMESPACE, name, { spec: { authoritativeAPI: 'ClusterAPI' } });
      await settle(name, 'Migrating');
      const removal = await rejected(() => removeFromMachineAPI('capiSync', 'preDrain', ETCD_HOOK.name, name));
      assert.equal(removal.by, 'webhook', removal.message);
      const stored = await machines('admin').get(MACHINE_NAMESPACE, name);
      assert.deepEqual(hooksOf(stored, 'preDrain'), [ETCD_HOOK]);

      // Break-glass may make that copy, warned.
      const { warnings } = await capiMachines('admin').create(CAPI_NAMESPACE, capiCopy(name, {}));
      assert.ok(
        warnings.some((w) => w.includes('break-glass') && w.includes('EtcdQuorumOperator')),
        warnings.join('\n'),
      );
    });

    test('a hook-less Machine API twin of a Cluster API Machine, made by a non-owner, is refused', async () => {
      const name = 'capi-master-2';
      await capiMachines('capiManager').create(CAPI_NAMESPACE, capiCopy(name, { [PRE_DRAIN_KEY]: ETCD_HOOK.owner }));
      const twin = openshiftMachine({ name });
      (twin['spec'] as Record<string, unknown>)['authoritativeAPI'] = 'MachineAPI';
      const refusal = await rejected(() => machines('alice').create(MACHINE_NAMESPACE, twin));
      assert.equal(refusal.by, 'webhook', refusal.message);
      assert.match(refusal.message, /"alice" may not create .*without hook "EtcdQuorumOperator"/);

      // With no Machine API copy, nothing names an authority: the synchronizer's removal is refused.
      const removal = await rejected(() =>
        capiMachines('capiSync').patch(CAPI_NAMESPACE, name, [
          { op: 'test', path: pointer(PRE_DRAIN_KEY), value: ETCD_HOOK.owner },
          { op: 'remove', path: pointer(PRE_DRAIN_KEY) },
        ]),
      );
      assert.equal(removal.by, 'webhook', removal.message);

      // A twin carrying the hook, as the synchronizer makes it, is anyone's to create.
      const mirror = openshiftMachine({ name, preDrain: [ETCD_HOOK] });
      (mirror['spec'] as Record<string, unknown>)['authoritativeAPI'] = 'ClusterAPI';
      await machines('alice').create(MACHINE_NAMESPACE, mirror);
    });

    // Last: it takes the webhooks away. The native policies cannot read the twin, so they have no mirror route: the
    // pre-arranged twin is allowed there (a declared divergence) and proves nothing.
    test('native admission policies: the hook-less twin is allowed, and the synchronizer’s removal still refused', async () => {
      const p = running();
      const version = await rawRequest({
        url: `${p.server}/version`,
        ca: p.caPem,
        token: p.identities.admin.token,
        timeoutMs: 10_000,
      });
      const { gitVersion } = JSON.parse(version.body) as { gitVersion: string };
      const rendered = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: gitVersion.replace(/[-+].*$/, '') });
      const validating = rendered.objects.filter((o) => String(o['kind']).startsWith('Validating'));
      for (const kind of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
        const res = await rawRequest({
          url: `${p.server}/apis/admissionregistration.k8s.io/v1/${kind}/hookkeeper-e2e`,
          method: 'DELETE',
          ca: p.caPem,
          token: p.identities.admin.token,
          timeoutMs: 30_000,
        });
        assert.equal(res.status, 200, res.body);
      }
      for (const o of validating) {
        const collection =
          o['kind'] === 'ValidatingAdmissionPolicy'
            ? 'validatingadmissionpolicies'
            : 'validatingadmissionpolicybindings';
        await createRaw(
          p.server,
          p.caPem,
          p.identities.admin.token,
          `/apis/${o['apiVersion'] as string}/${collection}`,
          o,
        );
      }
      const name = 'capi-master-3';
      await capiMachines('capiManager').create(CAPI_NAMESPACE, capiCopy(name, { [PRE_DRAIN_KEY]: ETCD_HOOK.owner }));
      const strip = () =>
        capiMachines('capiSync').patch(
          CAPI_NAMESPACE,
          name,
          [
            { op: 'test', path: pointer(PRE_DRAIN_KEY), value: ETCD_HOOK.owner },
            { op: 'remove', path: pointer(PRE_DRAIN_KEY) },
          ],
          { dryRun: true },
        );
      await pollUntil(
        'the native removal policy to refuse the synchronizer',
        30_000,
        async () => {
          const r = await rejected(strip).catch(() => undefined);
          return r && /ValidatingAdmissionPolicy/.test(r.message) ? true : undefined;
        },
        200,
      );
      const twin = openshiftMachine({ name });
      (twin['spec'] as Record<string, unknown>)['authoritativeAPI'] = 'MachineAPI';
      await machines('alice').create(MACHINE_NAMESPACE, twin);
      await settle(name, 'MachineAPI');
      const refusal = await rejected(strip);
      assert.equal(refusal.by, 'policy', refusal.message);
      assert.match(refusal.message, /may not remove preDrain hook "EtcdQuorumOperator"/);
    });
  });
}
