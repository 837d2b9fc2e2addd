// The audit's renderings: PolicyReports and OpenReports (each checked against its report schema), the terminal
// table and the plain lines for pipes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { KubeObject } from '../../src/core/types.js';
import { openReports } from '../../src/transports/audit/openreports.js';
import { policyReports } from '../../src/transports/audit/policyreport.js';
import { formatDuration, type AuditReport } from '../../src/transports/audit/report.js';
import { runAudit } from '../../src/transports/audit/run.js';
import { renderAudit } from '../../src/transports/audit/table.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../src/infrastructure/kube/types.js';
import { CrdSet } from '../../src/transports/validate/crd.js';
import { ETCD, machine } from '../fixtures/openshift.js';

const NOW = new Date('2026-11-21T12:00:00.250Z');

async function sample(): Promise<AuditReport> {
  const pages: Record<string, KubeObject[]> = {
    'machines.machine.openshift.io': [
      machine({ name: 'master-0', preDrain: [ETCD], deletionTimestamp: '2026-11-21T09:00:00Z' }),
      machine({ name: 'master-1' }),
      machine({ name: 'master-2', preDrain: [ETCD] }),
      machine({ name: 'worker-0', namespace: 'team-a', role: 'worker' }),
    ],
  };
  const lister: Lister = {
    async *list(r) {
      const items = pages[resourceName(r)];
      if (!items) throw new CrdNotInstalled(r);
      yield items;
    },
  };
  const report = await runAudit({
    lister,
    policy: DEFAULT_POLICY,
    now: () => NOW,
    stuckAfterMs: 30 * 60_000,
    recordPasses: true,
  });
  // A cluster-scoped object's finding goes to the ClusterPolicyReport (ClusterReport).
  report.findings.push({
    rule: 'hook-naming',
    result: 'warn',
    object: { apiVersion: 'example.io/v1', kind: 'Thing', name: 'global' },
    path: 'spec.x',
    message: 'spec.x: warned',
  });
  report.summary.warn++;
  return report;
}

describe('audit --output policyreport', () => {
  test('one PolicyReport per namespace, a ClusterPolicyReport for cluster-scoped objects, with summaries', async () => {
    const reports = policyReports(await sample());
    assert.deepEqual(
      reports.map((r) => [r['kind'], (r['metadata'] as { namespace?: string }).namespace, r['summary']]),
      [
        ['PolicyReport', 'openshift-machine-api', { pass: 1, fail: 2, warn: 0, error: 0, skip: 0 }],
        ['PolicyReport', 'team-a', { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 }],
        ['ClusterPolicyReport', undefined, { pass: 0, fail: 0, warn: 1, error: 0, skip: 0 }],
      ],
    );
    const [first] = reports;
    assert.equal(first?.['apiVersion'], 'wgpolicyk8s.io/v1alpha2');
    assert.deepEqual(first?.['metadata'], {
      name: 'hookkeeper',
      namespace: 'openshift-machine-api',
      labels: { 'app.kubernetes.io/managed-by': 'hookkeeper' },
    });
    const stuck = (first?.['results'] as Array<Record<string, unknown>>).find((r) => r['rule'] === 'stuck-deletion');
    assert.deepEqual(stuck, {
      source: 'hookkeeper',
      policy: 'hookkeeper',
      rule: 'stuck-deletion',
      category: 'Machine lifecycle hooks',
      severity: 'high',
      timestamp: { seconds: 1795262400, nanos: 250_000_000 },
      result: 'fail',
      scored: true,
      resources: [
        {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          namespace: 'openshift-machine-api',
          name: 'master-0',
          uid: '7c2f0a6e-3b1d-4c8e-9f5a-2d6b8e1c4a90',
        },
      ],
      message:
        'Machine openshift-machine-api/master-0 has been deleting for 3h (since 2026-11-21T09:00:00Z): preDrain hook "EtcdQuorumOperator" owned by "clusteroperator/etcd" is still there',
      properties: {
        path: 'spec.lifecycleHooks.preDrain[0]',
        fix: 'the deletion waits for "clusteroperator/etcd" to remove hook "EtcdQuorumOperator": check that controller; if it is gone for good, remove the hook as a break-glass identity (break-glass: group system:masters); removing its finalizers instead is refused to all but its controller',
        hookStage: 'preDrain',
        hookName: 'EtcdQuorumOperator',
        hookOwner: 'clusteroperator/etcd',
        deletionTimestamp: '2026-11-21T09:00:00Z',
        deletingForSeconds: '10800',
        waitingSince: '2026-11-21T09:00:00Z',
        waitingForSeconds: '10800',
        waitingSinceFrom: 'metadata.deletionTimestamp',
      },
    });
    const warn = (reports[2]?.['results'] as Array<Record<string, unknown>>)[0];
    assert.deepEqual([warn?.['result'], warn?.['scored'], warn?.['severity']], ['warn', false, 'medium']);
  });

  test('every report is valid against the wgpolicyk8s.io/v1alpha2 schema', async () => {
    const crds = CrdSet.parse([
      {
        file: 'audit-policyreport-crds.yaml',
        text: readFileSync(new URL('../fixtures/audit-policyreport-crds.yaml', import.meta.url), 'utf8'),
      },
    ]);
    for (const r of policyReports(await sample())) {
      assert.deepEqual(crds.validate({ group: 'wgpolicyk8s.io', version: 'v1alpha2', kind: String(r['kind']) }, r), []);
    }
    const broken = {
      apiVersion: 'wgpolicyk8s.io/v1alpha2',
      kind: 'PolicyReport',
      metadata: {},
      results: [{ result: 'bad', scored: 'yes' }],
    };
    assert.equal(
      crds.validate({ group: 'wgpolicyk8s.io', version: 'v1alpha2', kind: 'PolicyReport' }, broken).length,
      3,
      'the schema check can fail',
    );
  });
});

describe('audit --output openreports', () => {
  test('one openreports.io Report per namespace, a ClusterReport for cluster-scoped objects, the same results as the PolicyReports', async () => {
    const report = await sample();
    const reports = openReports(report);
    assert.deepEqual(
      reports.map((r) => [
        r['apiVersion'],
        r['kind'],
        (r['metadata'] as { namespace?: string }).namespace,
        r['summary'],
      ]),
      [
        [
          'openreports.io/v1alpha1',
          'Report',
          'openshift-machine-api',
          { pass: 1, fail: 2, warn: 0, error: 0, skip: 0 },
        ],
        ['openreports.io/v1alpha1', 'Report', 'team-a', { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 }],
        ['openreports.io/v1alpha1', 'ClusterReport', undefined, { pass: 0, fail: 0, warn: 1, error: 0, skip: 0 }],
      ],
    );
    const [first] = reports;
    assert.deepEqual(first?.['metadata'], {
      name: 'hookkeeper',
      namespace: 'openshift-machine-api',
      labels: { 'app.kubernetes.io/managed-by': 'hookkeeper' },
    });
    assert.equal(first?.['source'], 'hookkeeper', 'the report names its engine once, for all its results');
    assert.deepEqual(
      reports.map((r) => r['results']),
      policyReports(report).map((r) => r['results']),
    );
    const pass = (reports[1]?.['results'] as Array<Record<string, unknown>>)[0];
    assert.deepEqual(pass, {
      source: 'hookkeeper',
      policy: 'hookkeeper',
      category: 'Machine lifecycle hooks',
      timestamp: { seconds: 1795262400, nanos: 250_000_000 },
      result: 'pass',
      scored: true,
      resources: [
        {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          namespace: 'team-a',
          name: 'worker-0',
          uid: '7c2f0a6e-3b1d-4c8e-9f5a-2d6b8e1c4a90',
        },
      ],
      message: 'no findings: Machine worker-0 meets every hookkeeper rule that applies to it',
    });
  });

  test('every report is valid against the openreports.io/v1alpha1 schema', async () => {
    const crds = CrdSet.parse([
      {
        file: 'audit-openreports-crds.yaml',
        text: readFileSync(new URL('../fixtures/audit-openreports-crds.yaml', import.meta.url), 'utf8'),
      },
    ]);
    for (const r of openReports(await sample())) {
      assert.deepEqual(crds.validate({ group: 'openreports.io', version: 'v1alpha1', kind: String(r['kind']) }, r), []);
    }
    const broken = {
      apiVersion: 'openreports.io/v1alpha1',
      kind: 'ClusterReport',
      metadata: {},
      source: 1,
      results: [{ policy: 'p', result: 'bad', scored: 'yes' }],
    };
    assert.equal(
      crds.validate({ group: 'openreports.io', version: 'v1alpha1', kind: 'ClusterReport' }, broken).length,
      3,
      'the schema check can fail',
    );
  });

  test('a clean audit of nothing writes no reports', async () => {
    const empty = await runAudit({
      lister: {
        async *list() {
          yield [];
        },
      },
      policy: DEFAULT_POLICY,
      now: () => NOW,
      stuckAfterMs: 60_000,
      recordPasses: true,
    });
    assert.deepEqual([openReports(empty), policyReports(empty)], [[], []]);
  });
});

describe('audit text output', () => {
  test('a terminal gets an aligned table, then what was audited', async () => {
    const lines = renderAudit(await sample(), { tty: true }).split('\n');
    // Machine is a kind of two groups (machine.openshift.io, cluster.x-k8s.io): named Kind.group, as kubectl resolves it.
    assert.match(lines[0] ?? '', /^RESULT {2}RULE {12}KIND {26}NAMESPACE {14}NAME {6}PATH {29}MESSAGE$/);
    assert.match(
      lines[1] ?? '',
      /^fail {4}stuck-deletion {2}Machine\.machine\.openshift\.io {2}openshift-machine-api {2}master-0 {2}spec\.lifecycleHooks\.preDrain\[0\] {2}Machine openshift-machine-api\/master-0 has been deleting for 3h /,
    );
    assert.match(
      lines[2] ?? '',
      /^fail {4}default-hooks {3}Machine\.machine\.openshift\.io {2}openshift-machine-api {2}master-1 {2}spec\.lifecycleHooks\.preDrain {5}spec\.lifecycleHooks\.preDrain: Required value: default hook "EtcdQuorumOperator"/,
    );
    assert.equal(
      lines[3],
      'warn    hook-naming     Thing                                                global    spec.x                           spec.x: warned',
    );
    assert.deepEqual(lines.slice(5, 8), [
      'stuck deletions, explained:',
      '  hookkeeper explain machines.machine.openshift.io/master-0 -n openshift-machine-api',
      '',
    ]);
    assert.equal(
      lines[8],
      'audited 4 objects (machines.machine.openshift.io: 4, machinesets.machine.openshift.io: not installed, controlplanemachinesets.machine.openshift.io: not installed, machines.cluster.x-k8s.io: not installed, machinesets.cluster.x-k8s.io: not installed, machinedeployments.cluster.x-k8s.io: not installed, clusters.cluster.x-k8s.io: not installed)',
    );
    assert.equal(lines[9], '2 fail, 1 warn, 2 passed; 1 stuck deletion, 0 orphaned hooks');
    assert.match(lines[10] ?? '', /^note: machinesets\.machine\.openshift\.io\/v1beta1 is not served by this cluster/);
  });

  test('a pipe gets one line per finding, with its fix', async () => {
    const lines = renderAudit(await sample(), { tty: false }).split('\n');
    assert.match(
      lines[0] ?? '',
      /^fail stuck-deletion Machine\.machine\.openshift\.io openshift-machine-api\/master-0 spec\.lifecycleHooks\.preDrain\[0\]: Machine openshift-machine-api\/master-0 has been deleting for 3h /,
    );
    assert.match(
      lines[1] ?? '',
      /^ {2}fix: the deletion waits for "clusteroperator\/etcd" to remove hook "EtcdQuorumOperator"/,
    );
    // The stuck hook's explanation (src/core/explain), as `hookkeeper explain` gives it.
    assert.deepEqual(lines.slice(2, 4), [
      '  next: the owner "clusteroperator/etcd", the OpenShift etcd operator (ClusterOperator etcd): it removes the hook once its work is done (waits at preDrain, derived)',
      '  explain: hookkeeper explain machines.machine.openshift.io/master-0 -n openshift-machine-api',
    ]);
    assert.match(
      lines[4] ?? '',
      /^fail default-hooks Machine\.machine\.openshift\.io openshift-machine-api\/master-1 spec\.lifecycleHooks\.preDrain: spec\.lifecycleHooks\.preDrain: Required value/,
    );
    assert.match(
      lines[5] ?? '',
      /^ {2}fix: add \{name: EtcdQuorumOperator, owner: clusteroperator\/etcd\} to spec\.lifecycleHooks\.preDrain/,
    );
  });

  test('durations in messages: the two largest units', () => {
    assert.deepEqual([93_784_000, 7_500_000, 90_000, 12_000, 500, 3_600_000].map(formatDuration), [
      '1d2h',
      '2h5m',
      '1m30s',
      '12s',
      '0s',
      '1h',
    ]);
  });
});
