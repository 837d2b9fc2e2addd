// Each hook of an explained Machine (src/core/explain/hook.ts): protection by registry or RBAC as ownership.ts judges
// it, who may remove it and whether their service accounts exist, the etcd operator's health, and the next step: who
// must act, what to check, and a command that removes exactly that hook (run through a shell and applied here).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { explainMachine } from '../../src/core/explain/explain.js';
import { MACHINE_EXPLANATION_SCHEMA } from '../../src/transports/explain/output-schema.js';
import { renderText } from '../../src/transports/explain/text-output.js';
import { ETCD_QUORUM_WARNING } from '../../src/core/explain/known-owners.js';
import type { ExplainFacts, GrantSubjectFact, HookExplanation } from '../../src/core/explain/model.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject } from '../../src/core/types.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { applyPatch, type Operation } from '../helpers/json-patch.js';

const DELETED = '2026-11-28T10:00:00Z';
const STORAGE = { name: 'volume-backup', owner: 'team/storage' };
const known = (found: Record<string, boolean> = {}): ExplainFacts['serviceAccounts'] => ({ status: 'known', found });
const facts = (over: Partial<ExplainFacts> = {}): ExplainFacts => ({
  source: 'cluster',
  grants: { status: 'known', byOwner: {} },
  serviceAccounts: known({ 'openshift-etcd-operator/etcd-operator': true }),
  node: { status: 'absent' },
  clusterOperators: {},
  ...over,
});

const grant = (owner: string | undefined, kind: string, name: string, namespace?: string): GrantSubjectFact => ({
  kind,
  name,
  ...(namespace ? { namespace } : {}),
  binding: { kind: 'ClusterRoleBinding', name: `b-${name}` },
  role: { kind: 'ClusterRole', name: owner ? `hookowner-${owner}` : 'cluster-admin' },
  allNames: owner === undefined,
});

function hooks(object: KubeObject, f: ExplainFacts = facts(), policy: Policy = DEFAULT_POLICY): HookExplanation[] {
  return explainMachine({ object, policy, facts: f }).hooks;
}

const deleting = (o: Parameters<typeof machine>[0] = {}): KubeObject =>
  machine({ preDrain: [ETCD, STORAGE], deletionTimestamp: DELETED, ...o });

const capiDeleting = (annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'cp-0', namespace: 'capi', deletionTimestamp: DELETED, annotations },
});

/** The command as a shell splits it, and its JSON patch applied (test ops checked) to the object. */
function runCommand(command: string, object: KubeObject): { argv: string[]; patched: KubeObject } {
  assert.match(command, /^kubectl patch /);
  const out = spawnSync('sh', ['-c', `printf '%s\\n' ${command.slice('kubectl '.length)}`], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const argv = out.stdout.trimEnd().split('\n');
  const ops = JSON.parse(argv.at(-1) ?? '') as Operation[];
  const patched = applyPatch(object, ops);
  return { argv, patched };
}

describe('explain: a hook and its owner', () => {
  test('the etcd hook: protected by the registry, its operator, its health, the quorum warning', () => {
    const co = {
      status: 'found',
      conditions: [
        { type: 'Available', status: 'True' },
        { type: 'Degraded', status: 'False' },
      ],
    } as const;
    const [etcd] = hooks(deleting(), facts({ clusterOperators: { etcd: co } }));
    assert.ok(etcd);
    assert.equal(etcd.holds, 'now');
    assert.deepEqual(etcd.protection, {
      status: 'protected',
      by: ['registry'],
      reason: 'the policy registers "clusteroperator/etcd"',
    });
    assert.deepEqual(etcd.removers, [
      {
        via: 'registry',
        kind: 'ServiceAccount',
        name: 'etcd-operator',
        namespace: 'openshift-etcd-operator',
        exists: 'present',
      },
      { via: 'break-glass', kind: 'Group', name: 'system:masters' },
    ]);
    assert.deepEqual(etcd.controller?.health, {
      reporter: 'ClusterOperator etcd',
      health: 'healthy',
      basis: 'ClusterOperator etcd: Available=True, Degraded=False',
    });
    assert.deepEqual(etcd.nextStep.warnings, [ETCD_QUORUM_WARNING]);
    assert.match(etcd.nextStep.actor, /^the owner "clusteroperator\/etcd", the OpenShift etcd operator/);
    assert.equal(
      etcd.nextStep.for,
      `someone who may remove "clusteroperator/etcd"'s hook: system:serviceaccount:openshift-etcd-operator:etcd-operator, group system:masters`,
    );
  });

  test('a degraded etcd operator is named first among the checks; unreadable is unknown with the reason', () => {
    const degraded = {
      status: 'found',
      conditions: [
        { type: 'Available', status: 'True' },
        { type: 'Degraded', status: 'True', reason: 'EtcdMembersDegraded' },
      ],
    } as const;
    const [etcd] = hooks(deleting(), facts({ clusterOperators: { etcd: degraded } }));
    assert.equal(etcd?.controller?.health?.health, 'unhealthy');
    assert.equal(
      etcd?.nextStep.checks[0],
      'ClusterOperator etcd: Available=True, Degraded=True (EtcdMembersDegraded): let it recover first',
    );
    const forbidden = { etcd: { status: 'unknown', reason: 'cannot read ClusterOperator etcd: HTTP 403' } } as const;
    assert.deepEqual(hooks(deleting(), facts({ clusterOperators: forbidden }))[0]?.controller?.health, {
      reporter: 'ClusterOperator etcd',
      health: 'unknown',
      basis: 'cannot read ClusterOperator etcd: HTTP 403',
    });
  });

  test('an owner granted through RBAC: protected by rbac, its subjects listed, wildcard rights left out under deny', () => {
    const byOwner = {
      'team/storage': [
        grant('team/storage', 'User', 'bob'),
        grant('team/storage', 'ServiceAccount', 'backup', 'storage'),
        grant(undefined, 'Group', 'system:masters'),
      ],
    };
    const [, storage] = hooks(
      deleting(),
      facts({ grants: { status: 'known', byOwner }, serviceAccounts: known({ 'storage/backup': false }) }),
    );
    assert.deepEqual(storage?.protection.by, ['rbac']);
    assert.deepEqual(
      storage?.removers.map((r) => `${r.via} ${r.kind} ${r.name}${r.exists ? ` ${r.exists}` : ''}`),
      ['rbac User bob', 'rbac ServiceAccount backup absent', 'break-glass Group system:masters'],
    );
    assert.equal(storage?.removers[0]?.binding, 'ClusterRoleBinding b-bob');
    // The service account that does not exist is not offered to run the command.
    assert.equal(storage?.nextStep.for, `someone who may remove "team/storage"'s hook: bob, group system:masters`);
    // Under warn a wildcard holder removes as such; system:masters, break-glass too, removes as break-glass (the
    // route owner-only-removal audits), so it is listed once, as break-glass.
    const warn: Policy = { ...DEFAULT_POLICY, wildcardGrants: 'warn' };
    const admins = { 'team/storage': [...byOwner['team/storage'], grant(undefined, 'Group', 'platform-admins')] };
    const [, underWarn] = hooks(deleting(), facts({ grants: { status: 'known', byOwner: admins } }), warn);
    assert.deepEqual(
      underWarn?.removers.map((r) => `${r.via} ${r.kind} ${r.name}`),
      [
        'rbac User bob',
        'rbac ServiceAccount backup',
        'rbac-wildcard Group platform-admins',
        'break-glass Group system:masters',
      ],
    );
  });

  test('an owner nothing protects: anyone may remove it under unverifiedRemoval warn, nobody but break-glass under deny', () => {
    const [, storage] = hooks(deleting());
    assert.equal(storage?.protection.status, 'unprotected');
    assert.deepEqual(
      storage?.removers.map((r) => r.via),
      ['anyone', 'break-glass'],
    );
    const deny: Policy = { ...DEFAULT_POLICY, unverifiedRemoval: 'deny' };
    assert.deepEqual(
      hooks(deleting(), facts(), deny)[1]?.removers.map((r) => r.via),
      ['break-glass'],
    );
  });

  test('RBAC not readable (offline): a registered owner is protected, any other unknown', () => {
    const offline = facts({
      source: 'file',
      grants: { status: 'unknown', reason: 'offline' },
      serviceAccounts: { status: 'unknown', reason: 'offline' },
    });
    const [etcd, storage] = hooks(deleting(), offline);
    assert.equal(etcd?.protection.status, 'protected');
    assert.equal(etcd?.removers[0]?.exists, 'unknown');
    assert.equal(storage?.protection.status, 'unknown');
    assert.match(storage?.protection.reason ?? '', /RBAC grants could not be read: offline/);
  });

  test("the owner's registered service account is gone: said before anything else the owner would check", () => {
    const [etcd] = hooks(
      deleting(),
      facts({ serviceAccounts: known({ 'openshift-etcd-operator/etcd-operator': false }) }),
    );
    assert.match(
      etcd?.nextStep.checks[0] ?? '',
      /registered identities no longer exist \(system:serviceaccount:openshift-etcd-operator:etcd-operator \(does not exist\)\)/,
    );
  });
});

describe('explain: the command removes exactly that hook', () => {
  test('a Machine API list entry: test of the name at its index, then its removal', () => {
    const object = deleting();
    const storage = hooks(object)[1];
    const { argv, patched } = runCommand(storage?.nextStep.command ?? '', object);
    assert.deepEqual(argv.slice(0, 5), [
      'patch',
      'machines.machine.openshift.io/ci-ln-7x2k9-master-0',
      '-n',
      'openshift-machine-api',
      '--type=json',
    ]);
    assert.deepEqual((patched['spec'] as { lifecycleHooks: unknown }).lifecycleHooks, { preDrain: [ETCD] });
    // Once the list has moved on (someone else removed an entry), the test op refuses to remove another hook.
    const moved = machine({ preDrain: [STORAGE, ETCD], deletionTimestamp: DELETED });
    assert.throws(
      () => runCommand(hooks(object)[0]?.nextStep.command ?? '', moved),
      /^Error: test \/spec\/lifecycleHooks\/preDrain\/0\/name failed$/,
    );
  });

  test('a Cluster API annotation: "/" escaped as ~1, the owner tested; an owner with a quote survives the shell', () => {
    const object = capiDeleting({
      'pre-drain.delete.hook.machine.cluster.x-k8s.io/backup': "team/o'brien",
      'pre-drain.delete.hook.machine.cluster.x-k8s.io/other': 'team/x',
      note: 'kept',
    });
    const [backup] = hooks(object);
    assert.match(backup?.nextStep.command ?? '', /pre-drain\.delete\.hook\.machine\.cluster\.x-k8s\.io~1backup/);
    const { patched } = runCommand(backup?.nextStep.command ?? '', object);
    assert.deepEqual((patched['metadata'] as { annotations: unknown }).annotations, {
      'pre-drain.delete.hook.machine.cluster.x-k8s.io/other': 'team/x',
      note: 'kept',
    });
  });

  test('kcp-cleanup: no owner, KubeadmControlPlane named, the quorum warning; it waits for the preTerminate stage', () => {
    const object = capiDeleting({ 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup': '' });
    object['status'] = { conditions: [{ type: 'Deleting', status: 'True', reason: 'WaitingForPreTerminateHook' }] };
    const [kcp] = hooks(object);
    assert.equal(kcp?.holds, 'now');
    assert.equal(kcp?.protection.status, 'unprotected');
    assert.match(
      kcp?.nextStep.actor ?? '',
      /^Cluster API's KubeadmControlPlane controller: .*\(the hook names no owner\)/,
    );
    assert.deepEqual(kcp?.nextStep.warnings, [ETCD_QUORUM_WARNING]);
  });

  test("kcp-cleanup under the Cluster API profile: the owner its key implies, protected by the profile's registry", () => {
    const profile = parsePolicy(readFileSync('webhook-config/components/cluster-api/policy.yaml', 'utf8'), 'profile');
    const object = capiDeleting({ 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup': '' });
    object['status'] = { conditions: [{ type: 'Deleting', status: 'True', reason: 'WaitingForPreTerminateHook' }] };
    const f = facts({
      serviceAccounts: known({ 'capi-kubeadm-control-plane-system/capi-kubeadm-control-plane-manager': true }),
    });
    const [kcp] = hooks(object, f, profile);
    assert.equal(kcp?.owner, 'controlplane.cluster.x-k8s.io/kcp-cleanup');
    assert.equal(kcp?.ownerImplied, true);
    assert.equal(kcp?.protection.status, 'protected');
    assert.deepEqual(kcp?.protection.by, ['registry']);
    assert.ok(
      kcp?.removers.some((r) => r.name === 'capi-kubeadm-control-plane-manager'),
      JSON.stringify(kcp?.removers),
    );
    assert.match(kcp?.nextStep.actor ?? '', /^the owner "controlplane\.cluster\.x-k8s\.io\/kcp-cleanup"/);
    assert.deepEqual(kcp?.nextStep.warnings, [ETCD_QUORUM_WARNING]);
    const text = renderText(explainMachine({ object, policy: profile, facts: f }));
    assert.match(
      text,
      /preTerminate hook "kcp-cleanup" owned by "controlplane\.cluster\.x-k8s\.io\/kcp-cleanup" \(implied by the policy for its key: the value is empty\)/,
    );
    const schema = new Ajv({ strict: true, allErrors: true }).compile(MACHINE_EXPLANATION_SCHEMA);
    assert.ok(schema(explainMachine({ object, policy: profile, facts: f })), JSON.stringify(schema.errors));
    // A hook that names its owner keeps it, implied or not.
    const [named] = hooks(
      capiDeleting({ 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup': 'x/y' }),
      f,
      profile,
    );
    assert.deepEqual([named?.owner, named?.ownerImplied], ['x/y', undefined]);
  });

  test('not deleting, or a later stage: no command', () => {
    const [idle] = hooks(machine({ preDrain: [ETCD] }));
    assert.deepEqual(idle?.nextStep, { actor: 'nobody: the Machine is not deleting', checks: [], warnings: [] });
    const later = hooks(machine({ preDrain: [ETCD], preTerminate: [STORAGE], deletionTimestamp: DELETED }))[1];
    assert.equal(later?.holds, 'next');
    assert.equal(later?.nextStep.command, undefined);
  });

  test('OpenShift migration: a copy that is not authoritative gets no command, and is told where to act', () => {
    const object = deleting();
    (object['spec'] as Record<string, unknown>)['authoritativeAPI'] = 'ClusterAPI';
    object['status'] = { authoritativeAPI: 'ClusterAPI' };
    const x = explainMachine({ object, policy: DEFAULT_POLICY, facts: facts() });
    assert.deepEqual(x.authoritativeAPI, {
      spec: 'ClusterAPI',
      status: 'ClusterAPI',
      note: 'the Cluster API Machine of the same name is authoritative: this copy mirrors its hooks',
    });
    assert.equal(x.hooks[1]?.nextStep.command, undefined);
    assert.match(
      x.hooks[1]?.nextStep.checks[0] ?? '',
      /not authoritative \(status\.authoritativeAPI: ClusterAPI\): remove the hook on the Cluster API Machine/,
    );
    (object['status'] as Record<string, unknown>)['authoritativeAPI'] = 'MachineAPI';
    assert.ok(explainMachine({ object, policy: DEFAULT_POLICY, facts: facts() }).hooks[1]?.nextStep.command);
  });
});
