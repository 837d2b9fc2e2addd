// Native admission policies on the real API server, with hookkeeper's webhooks unregistered for the group: the
// rendered CEL compiles, the API server decides as the engine does (messages compared after its prefix), the
// default hooks are added by the MutatingAdmissionPolicies, and large Machines stay within the CEL cost budgets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { renderNativePolicies } from '../../../src/compilers/native/render.js';
import { POLICY_OWNER_HOOKS_PER_STAGE } from '../../../src/core/policy.js';
import {
  capiMachine,
  ETCD_HOOK,
  MACHINE_NAMESPACE,
  openshiftMachine,
  type Hook,
} from '../../../testing/control-plane/machines.js';
import { createRaw } from '../../../testing/control-plane/http.js';
import { rejected } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { Scenario } from '../harness/suite.js';
import { hooksOf } from './helpers.js';
import {
  CAPI,
  CAPI_DRAIN,
  CAPI_NAMESPACE,
  compiles,
  engine,
  installNativePolicies,
  many,
  NAMESPACE,
  OPENSHIFT,
  policyMessage,
  POLICY,
  policyWarnings,
  removeNativePolicies,
  withHooks,
  withPreTerminate,
  type Installed,
} from './native-setup.js';
import { ALICE_REMOVAL_DENIAL } from './owner-only-removal.js';

export const nativeCelScenarios: Scenario = (env) => {
  describe('native admission policies (CEL) decide as the webhook does, with no webhook registered', () => {
    let installed: Installed | undefined;
    const mutatingServed = (): boolean => installed?.mutating ?? false;

    before(async () => {
      installed = await installNativePolicies(env());
    });

    after(async () => {
      if (installed) await removeNativePolicies(env(), installed.rendered);
    });

    test('every rendered object was accepted by kube-apiserver (CEL compiled)', () => {
      assert.ok((installed?.rendered.objects ?? []).some((o) => o['kind'] === 'ValidatingAdmissionPolicy'));
      assert.ok(
        (installed?.rendered.objects ?? []).every((o) =>
          (o['metadata'] as { name: string }).name.startsWith('hookkeeper-'),
        ),
      );
    });

    test('every variant of the policy compiles: strictOwners, unverifiedRemoval deny and allow, rules under warn', async () => {
      const e = env();
      for (const variant of [
        { strictOwners: true, unverifiedRemoval: 'deny' as const },
        { unverifiedRemoval: 'allow' as const },
        {
          enforcement: { ...POLICY.enforcement, 'hook-naming': 'warn' as const, 'owner-only-removal': 'warn' as const },
        },
      ]) {
        const { objects } = renderNativePolicies(
          { ...POLICY, ...variant },
          { k8sVersion: installed?.k8sVersion ?? '1.36' },
        );
        await compiles(
          e.plane,
          objects.filter((o) => mutatingServed() || !String(o['kind']).startsWith('Mutating')),
        );
      }
    });

    test('MutatingAdmissionPolicy: the etcd hook is appended, a wrong owner corrected, a present hook left alone', async (t) => {
      if (!mutatingServed())
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
      if (!mutatingServed())
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
      if (!mutatingServed())
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
      // An update of its hooks is reviewed (one of only its labels is not), so the stored violation is named.
      // Of an owner nobody protects: adding a protected owner's hook is break-glass for admin, warned apart.
      const touched = withPreTerminate(stored, [{ name: 'Touched', owner: 'team/unprotected' }]);
      const kept = await e.machines('admin').replace(NAMESPACE, touched);
      const verdict = engine(e, 'admin', OPENSHIFT, touched, stored);
      assert.equal(verdict.allowed, true);
      assert.deepEqual(
        policyWarnings(kept.warnings),
        verdict.warnings.map((w) => `${w.rule}: ${w.message}`),
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
      // A registered owner's hooks, as many as hook-count lets it have, beside 1,000 others: removing them all is
      // denied, with the first one named.
      const owned = (i: number): string => (i < POLICY_OWNER_HOOKS_PER_STAGE ? ETCD_HOOK.owner : `team/o${i}`);
      await api.create(
        NAMESPACE,
        openshiftMachine({
          name: 'many-etcd',
          namespace: NAMESPACE,
          preDrain: many(1000 + POLICY_OWNER_HOOKS_PER_STAGE, owned),
        }),
      );
      const etcd = await withHooks(e.machines('alice'), 'many-etcd', []);
      const refusal = await rejected(() => e.machines('alice').replace(NAMESPACE, etcd.after));
      assert.doesNotMatch(refusal.message, /cost/i);
      assert.equal(policyMessage(refusal), engine(e, 'alice', OPENSHIFT, etcd.after, etcd.before).denials[0]?.message);
    });

    test('a Machine at the bound of unprotected hooks (1,000 per stage of 250-character names): created, updated and emptied within the budgets', async () => {
      const e = env();
      const api = e.machines('admin');
      const hooks = Array.from({ length: 1000 }, (_, i) => ({
        name: `h${String(i).padStart(5, '0')}.example.com/${'S'.repeat(230)}`,
        owner: `team/o${i}`,
      }));
      const big = openshiftMachine({ name: 'big', namespace: NAMESPACE, preDrain: hooks, preTerminate: hooks });
      assert.ok(JSON.stringify(big).length > 500_000);
      await api.create(NAMESPACE, big);
      const stored = await api.get(NAMESPACE, 'big');
      // Big before and after: one unprotected hook less (an update of only labels is not reviewed at all).
      await api.replace(NAMESPACE, withPreTerminate(stored, hooks.slice(0, -1)), { dryRun: true });
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
