// `hookkeeper audit` (in process) against the real API server, as hookkeeper's ServiceAccount with the ClusterRole
// webhook-config/base ships: seeded violations (a Machine missing a default hook of the audit's policy, a deletion
// held by a hook, a hook whose owner's ServiceAccount is gone, two control-plane Machines deleting without their
// quorum hook) are found, in JSON and as PolicyReports; a server that does not answer or does not accept the
// credentials is exit code 3.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { AuditReport } from '../../../src/transports/audit/report.js';
import { MACHINE_FINALIZER, openshiftMachine, type Hook } from '../../../testing/control-plane/machines.js';
import { cli } from '../../helpers/cli.js';
import { kubeConfigFor, writeKubeConfig } from '../../../testing/control-plane/identities.js';
import { freePorts } from '../../../testing/control-plane/ports.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { Scenario } from '../harness/suite.js';
import { metadataOf } from './helpers.js';

const NAMESPACE = 'audit-e2e';
const GATE_LABEL = 'e2e.hookkeeper.io/drain-gate';
const DEFAULT_GATE: Hook = { name: 'e2e.hookkeeper.io/DrainGate', owner: 'drain-team' };
const QUIESCE: Hook = { name: 'e2e.hookkeeper.io/Quiesce', owner: 'storage-team' };
const DEPROVISION: Hook = { name: 'e2e.hookkeeper.io/Deprovision', owner: 'e2e.hookkeeper.io/departed-operator' };

/**
 * The audit's policy adds a default hook the running webhook's (the embedded default) does not inject, so a
 * Machine it selects is stored without it; and registers an owner whose only ServiceAccount does not exist.
 */
const AUDIT_POLICY = `apiVersion: hookkeeper.io/v1alpha1
kind: Policy
owners:
  clusteroperator/etcd:
    serviceAccounts: [{ namespace: openshift-etcd-operator, name: etcd-operator }]
  ${DEPROVISION.owner}:
    serviceAccounts: [{ namespace: departed, name: operator }]
defaultHooks:
  - name: audit-e2e-drain-gate
    match:
      kinds: [{ group: machine.openshift.io, kind: Machine }]
      namespaces: [${NAMESPACE}]
      labelSelector: { matchLabels: { ${GATE_LABEL}: required } }
    stage: preDrain
    hook: { name: ${DEFAULT_GATE.name}, owner: ${DEFAULT_GATE.owner} }
quorumHooks:
  - name: audit-e2e-quorum
    match:
      kinds: [{ group: machine.openshift.io, kind: Machine }]
      namespaces: [${NAMESPACE}]
      labelSelector: { matchLabels: { machine.openshift.io/cluster-api-machine-role: master } }
    stage: preDrain
    hooks: [EtcdQuorumOperator]
    clusterLabel: machine.openshift.io/cluster-api-cluster
`;

/** Two control-plane Machines of the audit's quorum hook, deleting without it (break-glass stripped it, say). */
const QUORUM_MACHINES = ['audit-quorum-0', 'audit-quorum-1'];

interface Seeded {
  rule: string;
  name: string;
  hook: (Hook & { stage: string }) | undefined;
}

const EXPECTED: readonly Seeded[] = [
  { rule: 'default-hooks', name: 'audit-missing-hook', hook: { stage: 'preDrain', ...DEFAULT_GATE } },
  { rule: 'orphaned-owner', name: 'audit-orphaned', hook: { stage: 'preTerminate', ...DEPROVISION } },
  ...QUORUM_MACHINES.map((name) => ({ rule: 'quorum-at-risk', name, hook: undefined })),
  { rule: 'stuck-deletion', name: 'audit-stuck', hook: { stage: 'preDrain', ...QUIESCE } },
  // storage-team is neither registered nor granted through RBAC (the audit lists the cluster's grants): a warning.
  { rule: 'unprotected-owner', name: 'audit-stuck', hook: { stage: 'preDrain', ...QUIESCE } },
];

export const auditScenarios: Scenario = (env) => {
  describe('hookkeeper audit against the live cluster', () => {
    let policyFile = '';
    let kubeconfig = '';
    const audit = (...args: string[]): ReturnType<typeof cli> =>
      cli([
        'audit',
        '--kubeconfig',
        kubeconfig,
        '--config',
        policyFile,
        '-n',
        NAMESPACE,
        '--stuck-after',
        '1s',
        ...args,
      ]);

    before(async () => {
      const { plane, machines } = env();
      await plane
        .kubeConfig('admin')
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: NAMESPACE } } });
      const dir = join(plane.dir, 'audit');
      mkdirSync(dir, { recursive: true });
      policyFile = join(dir, 'policy.yaml');
      await writeFile(policyFile, AUDIT_POLICY);
      kubeconfig = await plane.kubeConfigFile('hookkeeper');

      const controllers = machines('machineApi');
      // First, so that its deletion is old enough by the time the others are in place.
      await controllers.create(
        NAMESPACE,
        openshiftMachine({
          name: 'audit-stuck',
          namespace: NAMESPACE,
          preDrain: [QUIESCE],
          finalizers: [MACHINE_FINALIZER],
        }),
      );
      await controllers.delete(NAMESPACE, 'audit-stuck');
      const missing = openshiftMachine({ name: 'audit-missing-hook', namespace: NAMESPACE });
      (metadataOf(missing)['labels'] as Record<string, string>)[GATE_LABEL] = 'required';
      await controllers.create(NAMESPACE, missing);
      await controllers.create(
        NAMESPACE,
        openshiftMachine({ name: 'audit-orphaned', namespace: NAMESPACE, preTerminate: [DEPROVISION] }),
      );
      await controllers.create(NAMESPACE, openshiftMachine({ name: 'audit-clean', namespace: NAMESPACE }));
      for (const name of QUORUM_MACHINES) {
        await controllers.create(
          NAMESPACE,
          openshiftMachine({ name, namespace: NAMESPACE, role: 'master', finalizers: [MACHINE_FINALIZER] }),
        );
        await controllers.delete(NAMESPACE, name);
      }
      // deletionTimestamp has whole seconds: wait until it lies more than --stuck-after (1s) in the past.
      const since = Date.parse(
        String(metadataOf(await controllers.get(NAMESPACE, 'audit-stuck'))['deletionTimestamp']),
      );
      await pollUntil('the deletion of audit-stuck to be over 1s old', 5_000, () =>
        Promise.resolve(Date.now() - since > 1_200 ? true : undefined),
      );
    });

    test('--output json: each seeded violation found, with its rule, object and hook; exit code 1', async () => {
      const run = await audit('--output', 'json');
      assert.equal(run.code, 1, run.stderr);
      const report = JSON.parse(run.stdout) as AuditReport;
      const found = report.findings
        .map((f) => ({ rule: f.rule, name: f.object.name, hook: f.hook }))
        .sort((a, b) => a.rule.localeCompare(b.rule));
      assert.deepEqual(found, EXPECTED);
      assert.ok(
        report.findings.every(
          (f) =>
            f.result === (f.rule === 'unprotected-owner' ? 'warn' : 'fail') &&
            f.object.namespace === NAMESPACE &&
            f.object.kind === 'Machine',
        ),
      );
      const stuck = report.findings.find((f) => f.rule === 'stuck-deletion');
      assert.ok((stuck?.deletingForSeconds ?? 0) >= 1, JSON.stringify(stuck));
      assert.match(
        stuck?.message ?? '',
        /^Machine audit-e2e\/audit-stuck has been deleting for \d+s \(since .+\): preDrain hook "e2e\.hookkeeper\.io\/Quiesce" owned by "storage-team" is still there$/,
      );
      const quorum = report.findings.filter((f) => f.rule === 'quorum-at-risk');
      assert.match(
        quorum[0]?.message ?? '',
        /^control-plane Machines audit-quorum-0 and audit-quorum-1 of cluster \S+ are deleting without quorum protection \(EtcdQuorumOperator\)/,
      );
      assert.deepEqual(
        report.quorum?.map((c) => [c.quorum, c.namespace, c.machines]),
        [['audit-e2e-quorum', NAMESPACE, QUORUM_MACHINES]],
      );
      assert.deepEqual(report.summary, {
        objects: 6,
        passed: 1,
        fail: 5,
        warn: 1,
        stuckDeletions: 1,
        orphanedHooks: 1,
      });
      const machines = report.resources.find((r) => r.resource === 'machines.machine.openshift.io');
      assert.deepEqual(machines, {
        resource: 'machines.machine.openshift.io',
        version: 'v1beta1',
        kind: 'Machine',
        status: 'audited',
        objects: 6,
      });
    });

    test('--output policyreport: one wgpolicyk8s.io PolicyReport for the namespace, with the findings and the clean Machine', async () => {
      const run = await audit('--output', 'policyreport');
      assert.equal(run.code, 1, run.stderr);
      const docs = parseAllDocuments(run.stdout).map((d) => {
        assert.deepEqual(d.errors, []);
        return d.toJS() as {
          apiVersion: string;
          kind: string;
          metadata: { name: string; namespace?: string };
          summary: Record<string, number>;
          results: Array<{ rule?: string; result: string; resources: Array<{ name: string }> }>;
        };
      });
      assert.deepEqual(
        docs.map((d) => [d.apiVersion, d.kind, d.metadata.namespace]),
        [['wgpolicyk8s.io/v1alpha2', 'PolicyReport', NAMESPACE]],
      );
      const [reportDoc] = docs;
      assert.deepEqual(reportDoc?.summary, { pass: 1, fail: 5, warn: 1, error: 0, skip: 0 });
      const results = (reportDoc?.results ?? []).map((r) => [r.result, r.rule ?? '', r.resources[0]?.name]).sort();
      assert.deepEqual(results, [
        ['fail', 'default-hooks', 'audit-missing-hook'],
        ['fail', 'orphaned-owner', 'audit-orphaned'],
        ['fail', 'quorum-at-risk', 'audit-quorum-0'],
        ['fail', 'quorum-at-risk', 'audit-quorum-1'],
        ['fail', 'stuck-deletion', 'audit-stuck'],
        ['pass', '', 'audit-clean'],
        ['warn', 'unprotected-owner', 'audit-stuck'],
      ]);
    });

    test('an API server that does not answer: exit code 3, saying so', async () => {
      const { plane } = env();
      const [port] = await freePorts(1);
      const file = await writeKubeConfig(
        join(plane.dir, 'audit', 'kubeconfig-closed-port.json'),
        kubeConfigFor(`https://127.0.0.1:${port}`, plane.caPem, 'hookkeeper', plane.identities.hookkeeper),
      );
      const run = await cli(['audit', '--kubeconfig', file, '--output', 'json']);
      assert.equal(run.code, 3, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`cannot reach the API server at https://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
      );
      assert.equal(run.stdout, '');
    });

    test('credentials the API server does not accept: exit code 3, unauthorized', async () => {
      const { plane } = env();
      const file = await writeKubeConfig(
        join(plane.dir, 'audit', 'kubeconfig-bad-token.json'),
        kubeConfigFor(plane.server, plane.caPem, 'hookkeeper', {
          ...plane.identities.hookkeeper,
          token: 'not-a-token',
        }),
      );
      const run = await cli(['audit', '--kubeconfig', file, '--output', 'json']);
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /unauthorized \(401\)/);
    });
  });
};
