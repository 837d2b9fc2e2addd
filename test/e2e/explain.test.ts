// `hookkeeper explain` against a real kube-apiserver with the upstream CRDs (Cluster API main, storing v1beta2; the
// Machine API's TechPreviewNoUpgrade CRD, which carries authoritativeAPI): deleting Machines of both APIs held by a
// finalizer, their status written through the status subresource as Cluster API v1.14 and the Machine API controller
// write it, a cordoned Node, an RBAC grant and service accounts, two control-plane Machines deleting without the etcd
// hook (a quorum at risk, listed live); run in process and as a kubectl plugin through the
// kubectl the suite builds, with the package's bin on PATH. One API server, a few objects, no webhook: explain reads.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { AuditReport } from '../../src/transports/audit/report.js';
import type { MachineExplanation } from '../../src/core/explain/model.js';
import { startControlPlane, type ControlPlane } from '../../testing/control-plane/control-plane.js';
import { rawRequest } from '../../testing/control-plane/http.js';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../testing/control-plane/machines.js';
import { pollUntil } from '../../testing/control-plane/processes.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';
import { cli } from '../helpers/cli.js';
import { kubectlSkip, requireKubectl } from './harness/kubectl.js';

const settings = readControlPlaneSettings();
const CRD_FILES = ['cluster.x-k8s.io_machines.yaml', '0000_10_machine-api_01_machines-TechPreviewNoUpgrade.crd.yaml'];
const files = CRD_FILES.map((f) => join(settings.sharedCrdDir, f));
const missing = files.filter((f) => !existsSync(f));
const skip = missing.length > 0 && !settings.ci ? `upstream CRDs not found: ${missing.join(', ')}` : false;

const NAME = 'cp-0';
const HOLD = 'e2e.hookkeeper.io/hold';
const CAPI = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${MACHINE_NAMESPACE}/machines`;
const MAPI = `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_NAMESPACE}/machines`;
const PRE_DRAIN_KEY = 'pre-drain.delete.hook.machine.cluster.x-k8s.io/volume-backup';
const KCP_KEY = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup';
const exec = promisify(execFile);
/** Two control-plane Machines deleting without the etcd hook: their cluster's quorum is at risk. */
const QUORUM = ['quorum-0', 'quorum-1'];

describe('hookkeeper explain against kube-apiserver', { skip }, () => {
  let plane: ControlPlane;
  let kubeconfig: string;
  const deletedAt = new Date(Date.now() - 2 * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');

  async function call(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
    const res = await rawRequest({
      url: `${plane.server}${path}`,
      method,
      ca: plane.caPem,
      token: plane.identities.admin.token,
      ...(body === undefined ? {} : { body }),
      ...(contentType ? { contentType } : {}),
      timeoutMs: 30_000,
    });
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: HTTP ${res.status}: ${res.body}`);
    return JSON.parse(res.body);
  }

  /** Create, delete (the finalizer keeps it), then write status as its controller would, through /status. */
  async function deletingMachine(path: string, body: object, status: object): Promise<void> {
    await pollUntil('the Machine CRD served', 30_000, async () => {
      const res = await rawRequest({
        url: `${plane.server}${path}`,
        method: 'POST',
        ca: plane.caPem,
        token: plane.identities.admin.token,
        body,
        timeoutMs: 30_000,
      });
      if (res.status === 503) return undefined;
      assert.equal(res.status, 201, res.body);
      return true;
    });
    await call('DELETE', `${path}/${NAME}`);
    const stored = (await call('GET', `${path}/${NAME}`)) as { metadata: { deletionTimestamp?: string } };
    assert.ok(stored.metadata.deletionTimestamp, 'held by its finalizer');
    await call('PATCH', `${path}/${NAME}/status`, { status }, 'application/merge-patch+json');
  }

  before(async () => {
    plane = await startControlPlane({ settings, crds: { name: 'explain CRDs', files } });
    kubeconfig = await plane.kubeConfigFile('admin');
    await call('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'master-node-0' },
      spec: { unschedulable: true },
    });
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'openshift-etcd-operator' } });
    await call('POST', '/api/v1/namespaces/openshift-etcd-operator/serviceaccounts', {
      metadata: { name: 'etcd-operator' },
    });
    await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'hookowner-team-storage' },
      rules: [
        { apiGroups: ['hookkeeper.io'], resources: ['hookowners'], verbs: ['remove'], resourceNames: ['team/storage'] },
      ],
    });
    await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'hookowner-team-storage' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'hookowner-team-storage' },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' },
        { kind: 'ServiceAccount', namespace: 'storage-system', name: 'backup' },
      ],
    });
    await deletingMachine(
      CAPI,
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Machine',
        metadata: { name: NAME, finalizers: [HOLD], annotations: { [PRE_DRAIN_KEY]: 'team/storage', [KCP_KEY]: '' } },
        spec: {
          clusterName: 'prod',
          bootstrap: { dataSecretName: `${NAME}-bootstrap` },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'DockerMachine', name: NAME },
        },
      },
      {
        nodeRef: { name: 'cp-0-node' },
        deletion: { waitForPreDrainHookStartTime: deletedAt },
        conditions: [
          {
            type: 'Deleting',
            status: 'True',
            reason: 'WaitingForPreDrainHook',
            message: 'Waiting for pre-drain hooks to succeed (hooks: volume-backup)',
            lastTransitionTime: deletedAt,
          },
        ],
      },
    );
    const mapi = openshiftMachine({ name: NAME, role: 'master', preDrain: [ETCD_HOOK], finalizers: [HOLD] });
    (mapi['spec'] as Record<string, unknown>)['authoritativeAPI'] = 'MachineAPI';
    await deletingMachine(MAPI, mapi, {
      authoritativeAPI: 'MachineAPI',
      nodeRef: { kind: 'Node', name: 'master-node-0' },
      conditions: [
        {
          type: 'Drainable',
          status: 'False',
          reason: 'HookPresent',
          severity: 'Warning',
          message: `Drain operation currently blocked by: [{Name:${ETCD_HOOK.name} Owner:${ETCD_HOOK.owner}}]`,
          lastTransitionTime: deletedAt,
        },
        { type: 'Terminable', status: 'True', lastTransitionTime: deletedAt },
      ],
    });
    for (const name of QUORUM) {
      await call('POST', MAPI, openshiftMachine({ name, role: 'master', finalizers: [HOLD] }));
      await call('DELETE', `${MAPI}/${name}`);
    }
  });

  after(async () => {
    for (const at of [`${CAPI}/${NAME}`, `${MAPI}/${NAME}`, ...QUORUM.map((q) => `${MAPI}/${q}`)])
      await rawRequest({
        url: `${plane.server}${at}`,
        method: 'PATCH',
        ca: plane.caPem,
        token: plane.identities.admin.token,
        body: { metadata: { finalizers: null } },
        contentType: 'application/merge-patch+json',
      }).catch(() => undefined);
    await plane?.stop();
  });

  test('a name both APIs have is ambiguous: exit 2 naming both qualified forms', async () => {
    const r = await cli(['explain', 'machine', NAME, '-n', MACHINE_NAMESPACE, '--kubeconfig', kubeconfig]);
    assert.equal(r.code, 2, r.stdout);
    assert.match(
      r.stderr,
      /"cp-0" is ambiguous: 2 Machines have that name; give one of machines\.machine\.openshift\.io\/cp-0 -n openshift-machine-api, machines\.cluster\.x-k8s\.io\/cp-0 -n openshift-machine-api/,
    );
  });

  test(
    'kubectl hookkeeper explain: a Cluster API v1beta2 Machine held at preDrain, from its status',
    { skip: kubectlSkip },
    async () => {
      const kubectl = requireKubectl();
      assert.ok(
        existsSync(join(settings.repoRoot, 'dist', 'transports', 'cli', 'commands', 'explain.js')),
        'dist/ is built (npm run build)',
      );
      const env = {
        ...process.env,
        PATH: `${join(settings.repoRoot, 'bin')}:${process.env['PATH'] ?? ''}`,
        KUBECONFIG: kubeconfig,
      };
      // No -n: found by name in every namespace (a field selector).
      const { stdout } = await exec(
        kubectl,
        ['hookkeeper', 'explain', `machines.cluster.x-k8s.io/${NAME}`, '-o', 'json'],
        { env },
      );
      const x = JSON.parse(stdout) as MachineExplanation;
      assert.equal(x.machine.apiVersion, 'cluster.x-k8s.io/v1beta2');
      assert.deepEqual(x.deletion.waitingAt?.evidence.basis, 'condition');
      assert.equal(x.deletion.waitingAt?.step, 'preDrain');
      assert.equal(x.deletion.waitingAt?.since, deletedAt);
      assert.equal(x.deletion.waitingAt?.sinceEvidence?.detail, 'status.deletion.waitForPreDrainHookStartTime');
      assert.deepEqual(x.node, { name: 'cp-0-node', status: 'absent', detail: 'Node cp-0-node does not exist' });
      const [storage, kcp] = x.hooks;
      assert.deepEqual(storage?.protection.by, ['rbac']);
      assert.deepEqual(
        storage?.removers.map((r) => `${r.via} ${r.kind} ${r.name}${r.exists ? ` ${r.exists}` : ''}`),
        ['rbac User bob', 'rbac ServiceAccount backup absent', 'break-glass Group system:masters'],
      );
      assert.equal(kcp?.holds, 'next');
      // The text a person reads, through the plugin too.
      const text = await exec(
        kubectl,
        ['hookkeeper', 'explain', 'machines.cluster.x-k8s.io', NAME, '-n', MACHINE_NAMESPACE],
        { env },
      );
      assert.match(
        text.stdout,
        /waits at: preDrain \(condition: status\.conditions\[type=Deleting\] reason WaitingForPreDrainHook/,
      );
    },
  );

  test('a Machine API Machine: Drainable HookPresent, a cordoned Node, the etcd owner; its command removes exactly that hook', async () => {
    const r = await cli([
      'explain',
      `machines.machine.openshift.io/${NAME}`,
      '-n',
      MACHINE_NAMESPACE,
      '-o',
      'json',
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const x = JSON.parse(r.stdout) as MachineExplanation;
    assert.match(
      x.deletion.waitingAt?.evidence.detail ?? '',
      /^status\.conditions\[type=Drainable\] reason HookPresent: Drain operation currently blocked by/,
    );
    assert.deepEqual(x.node, {
      name: 'master-node-0',
      status: 'present',
      cordoned: true,
      detail: 'Node master-node-0 exists and is cordoned (spec.unschedulable)',
    });
    assert.deepEqual(x.authoritativeAPI, {
      spec: 'MachineAPI',
      status: 'MachineAPI',
      note: 'this Machine API copy is authoritative: hooks are edited here and mirrored to Cluster API',
    });
    const [etcd] = x.hooks;
    assert.deepEqual(etcd?.protection.by, ['registry']);
    assert.equal(etcd?.removers[0]?.exists, 'present');
    assert.equal(etcd?.controller?.health?.health, 'unknown');
    assert.match(
      etcd?.controller?.health?.basis ?? '',
      /ClusterOperator etcd not found \(not an OpenShift cluster\?\)/,
    );
    // The command, as a shell runs it, against the real API server (as break-glass: no webhook runs here anyway).
    const command = etcd?.nextStep.command ?? '';
    assert.match(
      command,
      /^kubectl patch machines\.machine\.openshift\.io\/cp-0 -n openshift-machine-api --type=json -p '/,
    );
    const kubectl = requireKubectl();
    await exec('sh', ['-c', command.replace(/^kubectl /, '"$KUBECTL" ')], {
      env: { ...process.env, KUBECTL: kubectl, KUBECONFIG: kubeconfig },
    });
    const after = (await call('GET', `${MAPI}/${NAME}`)) as { spec: { lifecycleHooks?: { preDrain?: unknown[] } } };
    assert.deepEqual(after.spec.lifecycleHooks?.preDrain ?? [], []);
    // Run again, the test op finds no such hook: nothing else is removed.
    await assert.rejects(
      exec('sh', ['-c', command.replace(/^kubectl /, '"$KUBECTL" ')], {
        env: { ...process.env, KUBECTL: kubectl, KUBECONFIG: kubeconfig },
      }),
    );
  });

  test('a control-plane Machine whose cluster has two deleting without the etcd hook: quorum at risk, listed live', async () => {
    const args = ['explain', 'machines.machine.openshift.io/quorum-1', '-n', MACHINE_NAMESPACE];
    const r = await cli([...args, '-o', 'json', '--kubeconfig', kubeconfig]);
    assert.equal(r.code, 0, r.stderr);
    const x = JSON.parse(r.stdout) as MachineExplanation;
    assert.equal(x.quorum?.state, 'at-risk', JSON.stringify(x.quorum));
    // cp-0 joins them once the test above has removed its etcd hook; these two are there either way.
    for (const name of QUORUM) assert.ok(x.quorum.unprotectedDeleting.includes(name), x.quorum.detail);
    assert.match(
      x.summary,
      /; QUORUM AT RISK: \d control-plane Machines of cluster e2e-7x2k9 deleting without EtcdQuorumOperator$/,
    );
    const text = await cli([...args, '--kubeconfig', kubeconfig]);
    assert.match(
      text.stdout,
      /\nQuorum \(etcd-quorum\): AT RISK: control-plane Machines .*quorum-0 and quorum-1 of cluster e2e-7x2k9 are deleting without quorum protection \(EtcdQuorumOperator\)/,
    );
  });

  /** `hookkeeper audit -o json` of the Machines' namespace, which finds something stuck (exit 1). */
  async function auditStuck(stuckAfter: string): Promise<AuditReport> {
    const args = ['audit', '--kubeconfig', kubeconfig, '-n', MACHINE_NAMESPACE, '--stuck-after', stuckAfter];
    const r = await cli([...args, '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    return JSON.parse(r.stdout) as AuditReport;
  }

  test('audit names the same explanation in its stuck-deletion findings', async () => {
    // Deleted moments ago (its start times say two hours: the status was written so); anything deleting is stuck.
    const report = await auditStuck('1ms');
    const stuck = report.findings.find(
      (f) => f.rule === 'stuck-deletion' && f.object.kind === 'Machine' && f.hook?.name === 'volume-backup',
    );
    assert.ok(stuck?.explanation, JSON.stringify(report.findings.map((f) => f.rule)));
    assert.equal(stuck.explanation.waitingAt?.step, 'preDrain');
    assert.deepEqual(stuck.explanation.hook.protection.by, ['rbac']);
    assert.equal(
      stuck.explanation.explain,
      `hookkeeper explain machines.cluster.x-k8s.io/${NAME} -n ${MACHINE_NAMESPACE}`,
    );
  });

  test('audit measures a wait from the start the Machine records, not from its deletion', async () => {
    // Deleted moments ago, but its stored status.deletion says it has waited on its pre-drain hook for two hours.
    const report = await auditStuck('1h');
    const stuck = report.findings.filter((f) => f.rule === 'stuck-deletion');
    // Only the hook of the stage it waits at: kcp-cleanup (pre-terminate) holds nothing yet.
    assert.deepEqual(
      stuck.map((f) => [f.object.apiVersion, f.hook?.name, f.waitingSince, f.waitingSinceFrom]),
      // The audit lists Cluster API Machines at v1beta1, whose schema keeps status.deletion too.
      [['cluster.x-k8s.io/v1beta1', 'volume-backup', deletedAt, 'status.deletion.waitForPreDrainHookStartTime']],
    );
    assert.ok((stuck[0]?.waitingForSeconds ?? 0) >= 7200, JSON.stringify(stuck[0]));
    assert.ok((stuck[0]?.deletingForSeconds ?? Infinity) < 3600, JSON.stringify(stuck[0]));
    assert.match(
      stuck[0]?.message ?? '',
      /has waited at preDrain for 2h(\d+s)? \(since .+, status\.deletion\.waitForPreDrainHookStartTime; deleting for \d+s\)/,
    );
  });
});
