// Native admission policies on the real API server, with hookkeeper's webhooks unregistered for the group: the
// rendered CEL compiles, the API server decides as the engine does (messages compared after its prefix), the
// default hook is added by the MutatingAdmissionPolicy, and 1,000 hooks stay within the CEL cost budgets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parsePolicy } from '../../../src/config/load.js';
import { evaluate } from '../../../src/core/engine.js';
import type { KubeObject, ReviewInput } from '../../../src/core/types.js';
import { renderNativePolicies } from '../../../src/native/render.js';
import { capiMachine, ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine, type Hook } from '../../fixtures/e2e-objects.js';
import type { ControlPlane } from '../harness/control-plane.js';
import { registerWebhooks, waitForEnforcement } from '../harness/hookkeeper.js';
import { createRaw, rawRequest } from '../harness/http.js';
import type { IdentityName } from '../harness/identities.js';
import { rejected, type Rejection, type ResourceClient } from '../harness/kube.js';
import { pollUntil } from '../harness/processes.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { hooksOf } from './helpers.js';
import { ALICE_REMOVAL_DENIAL } from './owner-only-removal.js';

const API = '/apis/admissionregistration.k8s.io/v1';
const COLLECTIONS: Readonly<Record<string, string>> = {
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
  MutatingAdmissionPolicy: 'mutatingadmissionpolicies',
  MutatingAdmissionPolicyBinding: 'mutatingadmissionpolicybindings',
};
const NAMESPACE = 'native-cel';
/** Where the policy's Cluster API default-hook rule applies. */
const CAPI_NAMESPACE = 'native-cel-capi';
const CAPI_DRAIN = 'pre-drain.delete.hook.machine.cluster.x-k8s.io';

/**
 * The default policy plus a user-registered owner, so registry, RBAC and unverified routes all show (an owner of
 * this group's own: the hook-owner scenarios before it grant alice team/storage through RBAC, cluster-wide).
 */
const POLICY = parsePolicy(
  [
    'apiVersion: hookkeeper.io/v1alpha1',
    'kind: Policy',
    'owners:',
    '  team/native-storage:',
    '    users: [bob]',
    '  clusteroperator/etcd:',
    '    serviceAccounts: [{namespace: openshift-etcd-operator, name: etcd-operator}]',
    'reservedHooks:',
    '  - {name: EtcdQuorumOperator, owner: clusteroperator/etcd}',
    'defaultHooks:',
    '  - name: etcd-quorum-protection',
    '    match:',
    '      kinds: [{group: machine.openshift.io, kind: Machine}]',
    '      namespaces: [openshift-machine-api]',
    '      labelSelector:',
    '        matchExpressions: [{key: machine.openshift.io/cluster-api-machine-role, operator: In, values: [master, arbiter]}]',
    '    operations: [CREATE]',
    '    stage: preDrain',
    '    hook: {name: EtcdQuorumOperator, owner: clusteroperator/etcd}',
    '  - name: capi-storage-guard',
    '    match:',
    '      kinds: [{group: cluster.x-k8s.io, kind: Machine}]',
    '      namespaces: [native-cel-capi]',
    '    operations: [CREATE]',
    '    stage: preTerminate',
    '    hook: {name: StorageGuard, owner: team/native-storage}',
  ].join('\n'),
  'native-cel.yaml',
);

/** What the API server says after its "... denied request: " prefix. */
function policyMessage(r: Rejection): string {
  const m = /ValidatingAdmissionPolicy '[^']+' with binding '[^']+' denied request: (.*)$/s.exec(r.message);
  assert.ok(m, `not a ValidatingAdmissionPolicy denial: ${r.message}`);
  return m[1] ?? '';
}

function policyWarnings(warnings: readonly string[]): string[] {
  return warnings.map(
    (w) => /^Validation failed for ValidatingAdmissionPolicy '[^']+' with binding '[^']+': (.*)$/s.exec(w)?.[1] ?? w,
  );
}

async function apply(plane: ControlPlane, objects: readonly KubeObject[]): Promise<void> {
  for (const o of objects) {
    await createRaw(
      plane.server,
      plane.caPem,
      plane.identities.admin.token,
      `/apis/${o['apiVersion'] as string}/${COLLECTIONS[o['kind'] as string]}`,
      o,
    );
  }
}

async function remove(plane: ControlPlane, path: string): Promise<void> {
  const res = await rawRequest({
    url: `${plane.server}${path}`,
    method: 'DELETE',
    ca: plane.caPem,
    token: plane.identities.admin.token,
    timeoutMs: 30_000,
  });
  if (res.status !== 200 && res.status !== 404) throw new Error(`DELETE ${path}: HTTP ${res.status}: ${res.body}`);
}

/** The engine's verdict for the same request, as the webhook would give it (no RBAC facts: registry only). */
function engine(
  e: E2EEnv,
  as: IdentityName,
  kind: { group: string; kind: string },
  object: KubeObject,
  oldObject: KubeObject | null,
): ReturnType<typeof evaluate> {
  const who = e.plane.identities[as];
  const meta = object['metadata'] as { name: string; namespace: string };
  const input: ReviewInput = {
    operation: oldObject ? 'UPDATE' : 'CREATE',
    kind: { ...kind, version: 'v1beta1' },
    namespace: meta.namespace,
    name: meta.name,
    object,
    oldObject,
    userInfo: { username: who.username, groups: [...who.groups, 'system:authenticated'] },
    dryRun: false,
  };
  return evaluate(POLICY, input);
}

const OPENSHIFT = { group: 'machine.openshift.io', kind: 'Machine' };
const CAPI = { group: 'cluster.x-k8s.io', kind: 'Machine' };

/** Replaces a stored object's hooks of one stage (a full update, so the engine sees exactly what was sent). */
async function withHooks(
  client: ResourceClient,
  name: string,
  preDrain: Hook[],
  namespace = NAMESPACE,
): Promise<{ before: KubeObject; after: KubeObject }> {
  const before = await client.get(namespace, name);
  const after = structuredClone(before);
  (after['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks = { preDrain };
  return { before, after };
}

const many = (n: number, owner: (i: number) => string): Hook[] =>
  Array.from({ length: n }, (_, i) => ({ name: `hook-${i}.example.com/Step${i}`, owner: owner(i) }));

export const nativeCelScenarios: Scenario = (env) => {
  describe('native admission policies (CEL) decide as the webhook does, with no webhook registered', () => {
    let rendered = renderNativePolicies(POLICY, { k8sVersion: '1.36' });
    /** MutatingAdmissionPolicy is served (v1 from 1.36; v1beta1 in 1.34-1.35 only behind its feature gate). */
    let mutating = true;

    before(async () => {
      const e = env();
      const version = await rawRequest({
        url: `${e.plane.server}/version`,
        ca: e.plane.caPem,
        token: e.plane.identities.admin.token,
        timeoutMs: 10_000,
      });
      const { gitVersion } = JSON.parse(version.body) as { gitVersion: string };
      rendered = renderNativePolicies(POLICY, { k8sVersion: gitVersion.replace(/[-+].*$/, '') });
      const map = rendered.objects.find((o) => o['kind'] === 'MutatingAdmissionPolicy');
      const discovery = map
        ? await rawRequest({
            url: `${e.plane.server}/apis/${map['apiVersion'] as string}`,
            ca: e.plane.caPem,
            token: e.plane.identities.admin.token,
            timeoutMs: 10_000,
          })
        : undefined;
      mutating = discovery?.status === 200 && discovery.body.includes('"mutatingadmissionpolicies"');
      if (!mutating)
        rendered = { ...rendered, objects: rendered.objects.filter((o) => !String(o['kind']).startsWith('Mutating')) };
      await remove(e.plane, `${API}/validatingwebhookconfigurations/hookkeeper-e2e`);
      await remove(e.plane, `${API}/mutatingwebhookconfigurations/hookkeeper-e2e`);
      for (const name of [NAMESPACE, CAPI_NAMESPACE]) {
        await createRaw(e.plane.server, e.plane.caPem, e.plane.identities.admin.token, '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name },
        });
      }
      // A registered owner's hook, for the removal policy's probe.
      await e.machines('admin').create(
        NAMESPACE,
        openshiftMachine({
          name: 'probe-owned',
          namespace: NAMESPACE,
          preDrain: [{ name: 'Probe', owner: 'team/native-storage' }],
        }),
      );
      // Stored before any policy: a reserved name with the wrong owner, for ratcheting.
      await e.machines('admin').create(
        NAMESPACE,
        openshiftMachine({
          name: 'ratchet',
          namespace: NAMESPACE,
          preDrain: [{ name: ETCD_HOOK.name, owner: 'someone/else' }],
        }),
      );
      await apply(e.plane, rendered.objects);
      const probe = openshiftMachine({
        name: 'probe',
        namespace: NAMESPACE,
        preDrain: [{ name: ETCD_HOOK.name, owner: 'x/y' }],
      });
      await pollUntil(
        'the native policies to deny their probe',
        30_000,
        async () => {
          const r = await rejected(() => e.machines('admin').create(NAMESPACE, probe, { dryRun: true })).catch(
            () => undefined,
          );
          return r && /ValidatingAdmissionPolicy/.test(r.message) ? true : undefined;
        },
        200,
      );
      // Each policy is loaded on its own: probe the Cluster API one, and the warn and break-glass ones.
      const capiProbe = capiMachine({
        name: 'probe',
        namespace: NAMESPACE,
        annotations: { [`${CAPI_DRAIN}/${ETCD_HOOK.name}`]: 'x/y' },
      });
      await pollUntil(
        'the Cluster API policy to deny its probe',
        30_000,
        async () => {
          const r = await rejected(() => e.capiMachines('admin').create(NAMESPACE, capiProbe, { dryRun: true })).catch(
            () => undefined,
          );
          return r && /ValidatingAdmissionPolicy/.test(r.message) ? true : undefined;
        },
        200,
      );
      await pollUntil(
        'the warn and break-glass policies to warn',
        30_000,
        async () => {
          const stored = await e.machines('admin').get(NAMESPACE, 'ratchet');
          const emptied = structuredClone(stored);
          (emptied['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks = {};
          const relabeled = structuredClone(stored);
          (relabeled['metadata'] as { labels: Record<string, string> }).labels['probe'] = 'yes';
          const [glass, ratchet] = await Promise.all([
            e.machines('admin').replace(NAMESPACE, emptied, { dryRun: true }),
            e.machines('admin').replace(NAMESPACE, relabeled, { dryRun: true }),
          ]);
          return glass.warnings.some((w) => w.includes('break-glass:')) && ratchet.warnings.length > 0
            ? true
            : undefined;
        },
        200,
      );
      await pollUntil(
        'the removal policy to deny its probe',
        30_000,
        async () => {
          const owned = await e.machines('alice').get(NAMESPACE, 'probe-owned');
          (owned['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks = {};
          const r = await rejected(() => e.machines('alice').replace(NAMESPACE, owned, { dryRun: true })).catch(
            () => undefined,
          );
          return r && /ValidatingAdmissionPolicy/.test(r.message) ? true : undefined;
        },
        200,
      );
      if (mutating)
        await pollUntil(
          'the Cluster API mutating policy to add its hook',
          30_000,
          async () => {
            const { object } = await e
              .capiMachines('admin')
              .create(CAPI_NAMESPACE, capiMachine({ name: 'probe', namespace: CAPI_NAMESPACE }), { dryRun: true });
            return (object['metadata'] as { annotations?: object }).annotations ? true : undefined;
          },
          200,
        );
      if (mutating)
        await pollUntil(
          'the native mutating policy to add the etcd hook',
          30_000,
          async () => {
            const { object } = await e
              .machines('admin')
              .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'probe-cp', role: 'master' }), { dryRun: true });
            return hooksOf(object, 'preDrain').some((h) => h.name === ETCD_HOOK.name) ? true : undefined;
          },
          200,
        );
    });

    after(async () => {
      const e = env();
      for (const o of rendered.objects) {
        const name = (o['metadata'] as { name: string }).name;
        await remove(e.plane, `/apis/${o['apiVersion'] as string}/${COLLECTIONS[o['kind'] as string]}/${name}`);
      }
      await registerWebhooks(e.plane, e.hookkeeper);
      await waitForEnforcement(e.plane);
    });

    test('every rendered object was accepted by kube-apiserver (CEL compiled)', () => {
      assert.ok(rendered.objects.some((o) => o['kind'] === 'ValidatingAdmissionPolicy'));
      assert.ok(rendered.objects.every((o) => (o['metadata'] as { name: string }).name.startsWith('hookkeeper-')));
    });

    test('MutatingAdmissionPolicy: the etcd hook is appended, a wrong owner corrected, a present hook left alone', async (t) => {
      if (!mutating)
        return t.skip('this kube-apiserver serves no MutatingAdmissionPolicy (1.36, or 1.34-1.35 with its gate)');
      const api = env().machines('machineApi');
      const created = await api.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'native-cp-1', role: 'master', preDrain: [{ name: 'Other', owner: 'team/other' }] }),
      );
      assert.deepEqual(hooksOf(created.object, 'preDrain'), [{ name: 'Other', owner: 'team/other' }, ETCD_HOOK]);
      const wrong = await api.create(
        MACHINE_NAMESPACE,
        openshiftMachine({
          name: 'native-cp-2',
          role: 'master',
          preDrain: [{ name: ETCD_HOOK.name, owner: 'someone/else' }],
        }),
      );
      assert.deepEqual(hooksOf(wrong.object, 'preDrain'), [ETCD_HOOK]);
      const present = await api.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'native-cp-3', role: 'master', preDrain: [ETCD_HOOK] }),
      );
      assert.deepEqual(hooksOf(present.object, 'preDrain'), [ETCD_HOOK]);
      const worker = await api.create(MACHINE_NAMESPACE, openshiftMachine({ name: 'native-worker', role: 'worker' }));
      assert.deepEqual(hooksOf(worker.object, 'preDrain'), []);
    });

    test('MutatingAdmissionPolicy on Cluster API: the hook annotation added (annotations created if none), its owner corrected', async (t) => {
      if (!mutating)
        return t.skip('this kube-apiserver serves no MutatingAdmissionPolicy (1.36, or 1.34-1.35 with its gate)');
      const api = env().capiMachines('admin');
      const key = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/StorageGuard';
      const bare = await api.create(CAPI_NAMESPACE, capiMachine({ name: 'capi-bare', namespace: CAPI_NAMESPACE }));
      assert.deepEqual((bare.object['metadata'] as { annotations?: unknown }).annotations, {
        [key]: 'team/native-storage',
      });
      const wrong = await api.create(
        CAPI_NAMESPACE,
        capiMachine({
          name: 'capi-wrong',
          namespace: CAPI_NAMESPACE,
          annotations: { [key]: 'team/other', 'example.com/x': 'y' },
        }),
      );
      assert.deepEqual((wrong.object['metadata'] as { annotations?: unknown }).annotations, {
        [key]: 'team/native-storage',
        'example.com/x': 'y',
      });
      const elsewhere = await api.create(NAMESPACE, capiMachine({ name: 'capi-elsewhere', namespace: NAMESPACE }));
      assert.equal((elsewhere.object['metadata'] as { annotations?: unknown }).annotations, undefined);
    });

    test('owner-only removal: denied with the webhook message, allowed for the owner, warned for break-glass', async () => {
      const e = env();
      if (!mutating)
        await e
          .machines('machineApi')
          .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'native-cp-3', role: 'master', preDrain: [ETCD_HOOK] }));
      const machine = await e.machines('machineApi').get(MACHINE_NAMESPACE, 'native-cp-3');
      const { after: without } = { after: structuredClone(machine) };
      (without['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks = {};
      const refusal = await rejected(() => e.machines('alice').replace(MACHINE_NAMESPACE, without));
      assert.equal(refusal.code, 403);
      assert.equal(
        policyMessage(refusal),
        ALICE_REMOVAL_DENIAL.replace(/^admission webhook "[^"]+" denied the request: /, ''),
      );
      const glass = await e.machines('admin').replace(MACHINE_NAMESPACE, without, { dryRun: true });
      assert.deepEqual(policyWarnings(glass.warnings), [
        'break-glass: e2e-admin may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited',
      ]);
      const owner = await e.machines('etcdOperator').replace(MACHINE_NAMESPACE, without);
      assert.deepEqual(owner.warnings, []);
      assert.deepEqual(hooksOf(owner.object, 'preDrain'), []);
    });

    test('a registered user owner, an unverified owner (warned) and an RBAC grant, each as the engine decides', async () => {
      const e = env();
      const hooks = [
        { name: 'StorageDrain', owner: 'team/native-storage' },
        { name: 'Unknown', owner: 'team/unknown' },
      ];
      await e
        .machines('admin')
        .create(NAMESPACE, openshiftMachine({ name: 'owners', namespace: NAMESPACE, preDrain: hooks }));
      const alice = await withHooks(e.machines('alice'), 'owners', [hooks[1] as Hook]);
      const denied = await rejected(() => e.machines('alice').replace(NAMESPACE, alice.after));
      const verdict = engine(e, 'alice', OPENSHIFT, alice.after, alice.before);
      assert.equal(verdict.allowed, false);
      assert.equal(policyMessage(denied), verdict.denials[0]?.message);
      const unverified = await withHooks(e.machines('alice'), 'owners', [hooks[0] as Hook]);
      const warned = await e.machines('alice').replace(NAMESPACE, unverified.after, { dryRun: true });
      const expected = engine(e, 'alice', OPENSHIFT, unverified.after, unverified.before);
      assert.deepEqual(
        policyWarnings(warned.warnings),
        expected.notices.map((n) => n.warning),
      );
      const bob = await e.machines('bob').replace(NAMESPACE, alice.after, { dryRun: true });
      assert.deepEqual(bob.warnings, []);
      // RBAC: alice granted remove on hookowners/team/native-storage in this namespace.
      const token = e.plane.identities.admin.token;
      await createRaw(
        e.plane.server,
        e.plane.caPem,
        token,
        `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/roles`,
        {
          metadata: { name: 'hookowner-team-native-storage' },
          rules: [
            {
              apiGroups: ['hookkeeper.io'],
              resources: ['hookowners'],
              verbs: ['remove'],
              resourceNames: ['team/native-storage'],
            },
          ],
        },
      );
      await createRaw(
        e.plane.server,
        e.plane.caPem,
        token,
        `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings`,
        {
          metadata: { name: 'hookowner-team-native-storage-alice' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'hookowner-team-native-storage' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
        },
      );
      const granted = await pollUntil('the grant to reach the authorizer', 10_000, async () =>
        e
          .machines('alice')
          .replace(NAMESPACE, alice.after)
          .catch(() => undefined),
      );
      assert.deepEqual(hooksOf(granted.object, 'preDrain'), [hooks[1]]);
    });

    test('single owner, reserved names and ratcheting: the stored violation warns, a new one is denied', async () => {
      const e = env();
      const stored = await e.machines('admin').get(NAMESPACE, 'ratchet');
      const relabeled = structuredClone(stored);
      (relabeled['metadata'] as { labels: Record<string, string> }).labels['touched'] = 'yes';
      const kept = await e.machines('admin').replace(NAMESPACE, relabeled);
      const verdict = engine(e, 'admin', OPENSHIFT, relabeled, stored);
      assert.equal(verdict.allowed, true);
      assert.deepEqual(
        policyWarnings(kept.warnings),
        verdict.warnings.map((w) => w.message),
      );
      const cross = openshiftMachine({
        name: 'cross',
        namespace: NAMESPACE,
        preDrain: [{ name: 'Shared', owner: 'team/a' }],
        preTerminate: [{ name: 'Shared', owner: 'team/b' }],
      });
      const refusal = await rejected(() => e.machines('admin').create(NAMESPACE, cross));
      assert.equal(policyMessage(refusal), engine(e, 'admin', OPENSHIFT, cross, null).denials[0]?.message);
    });

    test("deletion freeze: a deleting Machine's hooks may go, not come, in machine-api-operator's words", async () => {
      const e = env();
      const api = e.machines('admin');
      await api.create(
        NAMESPACE,
        openshiftMachine({
          name: 'deleting',
          namespace: NAMESPACE,
          finalizers: ['example.com/hold'],
          preDrain: [{ name: 'Keep', owner: 'team/unknown' }],
        }),
      );
      await api.delete(NAMESPACE, 'deleting');
      const stored = await api.get(NAMESPACE, 'deleting');
      const added = structuredClone(stored);
      (added['spec'] as { lifecycleHooks: { preDrain: Hook[] } }).lifecycleHooks.preDrain.push({
        name: 'Late',
        owner: 'team/late',
      });
      const refusal = await rejected(() => api.replace(NAMESPACE, added));
      assert.equal(policyMessage(refusal), engine(e, 'admin', OPENSHIFT, added, stored).denials[0]?.message);
      const finished = structuredClone(stored);
      (finished['metadata'] as { finalizers: string[] }).finalizers = [];
      await api.replace(NAMESPACE, finished);
    });

    test('Cluster API annotations: a reserved name and an owner-only removal, as the engine words them', async () => {
      const e = env();
      const bad = capiMachine({
        name: 'capi-reserved',
        namespace: NAMESPACE,
        annotations: { [`${CAPI_DRAIN}/${ETCD_HOOK.name}`]: 'x/y' },
      });
      const refusal = await rejected(() => e.capiMachines('admin').create(NAMESPACE, bad));
      assert.equal(policyMessage(refusal), engine(e, 'admin', CAPI, bad, null).denials[0]?.message);
      const { object } = await e.capiMachines('admin').create(
        NAMESPACE,
        capiMachine({
          name: 'capi-owned',
          namespace: NAMESPACE,
          annotations: { [`${CAPI_DRAIN}/${ETCD_HOOK.name}`]: ETCD_HOOK.owner },
        }),
      );
      const removed = structuredClone(object);
      (removed['metadata'] as { annotations: Record<string, string> }).annotations = {};
      const denied = await rejected(() => e.capiMachines('alice').replace(NAMESPACE, removed));
      assert.equal(policyMessage(denied), engine(e, 'alice', CAPI, removed, object).denials[0]?.message);
    });

    test('1,000 hooks: created, then removed with 16 RBAC checks and one denial, within the CEL cost budgets', async () => {
      const e = env();
      const api = e.machines('admin');
      // Distinct unregistered owners: every removal asks RBAC, up to the 16 owners a request may check.
      await api.create(
        NAMESPACE,
        openshiftMachine({ name: 'many', namespace: NAMESPACE, preDrain: many(1000, (i) => `team/o${i}`) }),
      );
      const unverified = await withHooks(e.machines('alice'), 'many', []);
      const warned = await e.machines('alice').replace(NAMESPACE, unverified.after, { dryRun: true });
      assert.equal(
        policyWarnings(warned.warnings)[0],
        engine(e, 'alice', OPENSHIFT, unverified.after, unverified.before).notices[0]?.warning,
      );
      // A registered owner's 1,000 hooks: denied, with the first one named.
      await api.create(
        NAMESPACE,
        openshiftMachine({ name: 'many-etcd', namespace: NAMESPACE, preDrain: many(1000, () => ETCD_HOOK.owner) }),
      );
      const etcd = await withHooks(e.machines('alice'), 'many-etcd', []);
      const refusal = await rejected(() => e.machines('alice').replace(NAMESPACE, etcd.after));
      assert.doesNotMatch(refusal.message, /cost/i);
      assert.equal(policyMessage(refusal), engine(e, 'alice', OPENSHIFT, etcd.after, etcd.before).denials[0]?.message);
    });

    test('a Machine of about 1.5 MB (5,400 hooks of 250-character names): created, updated and emptied within the budgets', async () => {
      const e = env();
      const api = e.machines('admin');
      const hooks = Array.from({ length: 2700 }, (_, i) => ({
        name: `h${String(i).padStart(5, '0')}.example.com/${'S'.repeat(230)}`,
        owner: `team/o${i}`,
      }));
      const big = openshiftMachine({ name: 'big', namespace: NAMESPACE, preDrain: hooks, preTerminate: hooks });
      assert.ok(JSON.stringify(big).length > 1_400_000);
      await api.create(NAMESPACE, big);
      const stored = await api.get(NAMESPACE, 'big');
      const relabeled = structuredClone(stored);
      (relabeled['metadata'] as { labels: Record<string, string> }).labels['touched'] = 'yes';
      await api.replace(NAMESPACE, relabeled, { dryRun: true });
      const emptied = structuredClone(stored);
      (emptied['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks = {};
      const warned = await e.machines('alice').replace(NAMESPACE, emptied, { dryRun: true });
      // 17 long warnings pass the API server's 4,096 runes: it cuts each to 256 (the webhook cuts to 120 itself).
      const first = policyWarnings(warned.warnings)[0] ?? '';
      assert.ok(first.length > 60, first);
      assert.ok(engine(e, 'alice', OPENSHIFT, emptied, stored).notices[0]?.warning?.startsWith(first), first);
    });
  });
};
