// `serve --audit-interval`: the background audit's findings as metrics on the server's registry, runs that never
// overlap, and failures that are counted while the last good values stay.
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { startAuditLoop, startBackgroundAudit } from '../../src/transports/audit/background.js';
import { createAuditMetrics } from '../../src/transports/audit/metrics.js';
import type { AuditReport } from '../../src/transports/audit/report.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { KubeObject } from '../../src/core/types.js';
import { RULES } from '../../src/core/registry.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../src/infrastructure/kube/types.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { eventually } from '../helpers/wait.js';

function metricLines(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(name) && !l.startsWith('#'));
}

const lister = (stuck: boolean): Lister => ({
  async *list(r) {
    if (resourceName(r) !== 'machines.machine.openshift.io') throw new CrdNotInstalled(r);
    yield [
      machine({ name: 'master-0', preDrain: [ETCD], ...(stuck ? { deletionTimestamp: '2000-01-01T00:00:00Z' } : {}) }),
      machine({ name: 'master-1' }),
    ];
  },
});

describe('audit metrics', () => {
  test('a finished run sets every gauge; every rule has a series, 0 when clean', async () => {
    const startedAt = Date.now();
    const metrics = createMetrics();
    const loop = startBackgroundAudit({
      intervalMs: 60_000,
      stuckAfterMs: 60_000,
      policy: () => DEFAULT_POLICY,
      lister: lister(true),
      registry: metrics.registry,
      logger: silentLogger(),
    });
    try {
      await eventually(
        async () =>
          metricLines(await metrics.registry.metrics(), 'hookkeeper_audit_objects')[0] === 'hookkeeper_audit_objects 2',
      );
      const text = await metrics.registry.metrics();
      // Every rule the audit runs has a series, in registry order; this cluster has one Machine lacking its default
      // hook and one stuck deleting.
      const found: Partial<Record<string, number>> = { 'default-hooks': 1, 'stuck-deletion': 1 };
      assert.deepEqual(
        metricLines(text, 'hookkeeper_audit_violations'),
        RULES.filter((r) => r.validate !== undefined && r.sources.includes('audit')).map(
          (r) => `hookkeeper_audit_violations{rule="${r.id}"} ${found[r.id] ?? 0}`,
        ),
      );
      assert.deepEqual(metricLines(text, 'hookkeeper_stuck_deletions'), ['hookkeeper_stuck_deletions 1']);
      assert.deepEqual(metricLines(text, 'hookkeeper_audit_objects'), ['hookkeeper_audit_objects 2']);
      assert.deepEqual(metricLines(text, 'hookkeeper_audit_failures_total'), ['hookkeeper_audit_failures_total 0']);
      const last = Number(metricLines(text, 'hookkeeper_audit_last_run_timestamp_seconds')[0]?.split(' ')[1]);
      // The run finished during this test: an order of events, not a duration.
      assert.ok(last >= Math.floor(startedAt / 1000) && last <= Date.now() / 1000, `last run ${last}`);
    } finally {
      loop.stop();
      await loop.settled();
    }
  });

  test('stuck deletions by the stage they wait at and owner: owners nothing names are "other"', async () => {
    const STORAGE = { name: 'storage.example.com/Migrate', owner: 'team/storage' };
    const STRANGER = { name: 'Stranger', owner: 'example.com/stranger' };
    const BACKUP = { name: 'Backup', owner: 'team/backup' };
    const binding = (role: string, user: string): KubeObject => ({
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'User', name: user }],
    });
    const pages: Record<string, KubeObject[]> = {
      'machines.machine.openshift.io': [
        // Waits at preDrain (the etcd hook): its preTerminate hook does not hold it yet.
        machine({ name: 'm0', preDrain: [ETCD], preTerminate: [STRANGER], deletionTimestamp: '2026-01-01T02:00:00Z' }),
        machine({ name: 'm1', preDrain: [ETCD], deletionTimestamp: '2026-01-01T01:00:00Z' }),
        // Drained: waits at preTerminate, on an owner an RBAC grant names and on one nothing names.
        machine({ name: 'm2', preTerminate: [STORAGE, STRANGER], deletionTimestamp: '2026-01-01T03:00:00Z' }),
        machine({ name: 'm3', preTerminate: [BACKUP], deletionTimestamp: '2026-01-01T04:00:00Z' }),
        // Not stuck: deleting for less than the threshold.
        machine({ name: 'm4', preDrain: [ETCD], deletionTimestamp: new Date().toISOString() }),
      ],
      'clusterroles.rbac.authorization.k8s.io': [
        {
          metadata: { name: 'storage-owner' },
          rules: [
            {
              apiGroups: ['hookkeeper.io'],
              resources: ['hookowners'],
              verbs: ['remove'],
              resourceNames: ['team/storage'],
            },
          ],
        },
      ],
      'clusterrolebindings.rbac.authorization.k8s.io': [binding('storage-owner', 'bob')],
    };
    const metrics = createMetrics();
    const loop = startBackgroundAudit({
      intervalMs: 60_000,
      stuckAfterMs: 3_600_000,
      policy: () => DEFAULT_POLICY,
      lister: {
        async *list(r) {
          const name = resourceName(r);
          if (name.startsWith('machines.') && name !== 'machines.machine.openshift.io') throw new CrdNotInstalled(r);
          yield pages[name] ?? [];
        },
      },
      registry: metrics.registry,
      logger: silentLogger(),
    });
    try {
      await eventually(async () =>
        metricLines(await metrics.registry.metrics(), 'hookkeeper_stuck_deletions').includes(
          'hookkeeper_stuck_deletions 4',
        ),
      );
      const text = await metrics.registry.metrics();
      const at = (iso: string): number => Date.parse(iso) / 1000;
      assert.deepEqual(metricLines(text, 'hookkeeper_stuck_deletion_machines').sort(), [
        'hookkeeper_stuck_deletion_machines{stage="preDrain",owner="clusteroperator/etcd"} 2',
        'hookkeeper_stuck_deletion_machines{stage="preTerminate",owner="other"} 2',
        'hookkeeper_stuck_deletion_machines{stage="preTerminate",owner="team/storage"} 1',
      ]);
      assert.deepEqual(metricLines(text, 'hookkeeper_stuck_deletion_oldest_timestamp_seconds').sort(), [
        `hookkeeper_stuck_deletion_oldest_timestamp_seconds{stage="preDrain",owner="clusteroperator/etcd"} ${at('2026-01-01T01:00:00Z')}`,
        `hookkeeper_stuck_deletion_oldest_timestamp_seconds{stage="preTerminate",owner="other"} ${at('2026-01-01T03:00:00Z')}`,
        `hookkeeper_stuck_deletion_oldest_timestamp_seconds{stage="preTerminate",owner="team/storage"} ${at('2026-01-01T03:00:00Z')}`,
      ]);
    } finally {
      loop.stop();
      await loop.settled();
    }
  });

  test('the oldest wait is measured from its recorded start, not from the deletion', async () => {
    const registry = createMetrics().registry;
    const metrics = createAuditMetrics(registry);
    const finding = (name: string, waitingSince: string) =>
      ({
        rule: 'stuck-deletion',
        result: 'fail',
        object: { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', namespace: 'ns', name },
        message: '',
        hook: { stage: 'preTerminate', name: 'backup', owner: 'team-b' },
        deletionTimestamp: '2026-01-01T00:00:00Z',
        deletingForSeconds: 7200,
        waitingSince,
        waitingForSeconds: 0,
        waitingSinceFrom: 'status.deletion.waitForPreTerminateHookStartTime',
      }) as const;
    const report = {
      findings: [finding('m0', '2026-01-01T01:50:00Z'), finding('m1', '2026-01-01T01:30:00Z')],
      summary: { objects: 2, stuckDeletions: 2 },
      finishedAt: '2026-01-01T02:00:00Z',
    } as unknown as AuditReport;
    metrics.record(report, (owner) => owner);
    assert.deepEqual(metricLines(await registry.metrics(), 'hookkeeper_stuck_deletion_oldest_timestamp_seconds'), [
      `hookkeeper_stuck_deletion_oldest_timestamp_seconds{stage="preTerminate",owner="team-b"} ${Date.parse('2026-01-01T01:30:00Z') / 1000}`,
    ]);
  });

  test("a run without stuck deletions clears the last run's series", () => {
    const registry = createMetrics().registry;
    const metrics = createAuditMetrics(registry);
    const finding = {
      rule: 'stuck-deletion',
      result: 'fail',
      object: { apiVersion: 'machine.openshift.io/v1beta1', kind: 'Machine', namespace: 'ns', name: 'm0' },
      message: '',
      hook: { stage: 'preDrain', name: ETCD.name, owner: ETCD.owner },
      deletionTimestamp: '2026-01-01T00:00:00Z',
      deletingForSeconds: 7200,
    } as const;
    const report = (findings: AuditReport['findings']): AuditReport =>
      ({
        findings,
        summary: { objects: 1, stuckDeletions: findings.length },
        finishedAt: '2026-01-01T02:00:00Z',
      }) as unknown as AuditReport;
    metrics.record(report([finding]), (owner) => owner);
    return registry.metrics().then(async (text) => {
      assert.deepEqual(metricLines(text, 'hookkeeper_stuck_deletion_machines'), [
        'hookkeeper_stuck_deletion_machines{stage="preDrain",owner="clusteroperator/etcd"} 1',
      ]);
      metrics.record(report([]), (owner) => owner);
      assert.deepEqual(metricLines(await registry.metrics(), 'hookkeeper_stuck_deletion_machines'), []);
    });
  });

  test('control-plane Machines deleting without their quorum hook, by cluster; a cluster that recovers drops its series', async () => {
    const registry = createMetrics().registry;
    const metrics = createAuditMetrics(registry);
    const report = (quorum: AuditReport['quorum']): AuditReport =>
      ({
        findings: [],
        summary: { objects: 6, stuckDeletions: 0 },
        finishedAt: '2026-01-01T02:00:00Z',
        ...(quorum ? { quorum } : {}),
      }) as unknown as AuditReport;
    const ns = 'openshift-machine-api';
    metrics.record(
      report([
        { quorum: 'etcd-quorum', namespace: ns, cluster: 'c1', machines: ['m-0', 'm-2'] },
        { quorum: 'etcd-quorum', namespace: ns, cluster: 'c2', machines: ['m-5'] },
      ]),
      (owner) => owner,
    );
    const name = 'hookkeeper_quorum_unprotected_deleting_machines';
    assert.deepEqual(metricLines(await registry.metrics(), name), [
      `${name}{quorum="etcd-quorum",namespace="${ns}",cluster="c1"} 2`,
      `${name}{quorum="etcd-quorum",namespace="${ns}",cluster="c2"} 1`,
    ]);
    metrics.record(report([{ quorum: 'etcd-quorum', namespace: ns, cluster: 'c2', machines: ['m-5'] }]), (o) => o);
    assert.deepEqual(metricLines(await registry.metrics(), name), [
      `${name}{quorum="etcd-quorum",namespace="${ns}",cluster="c2"} 1`,
    ]);
    metrics.record(report(undefined), (o) => o);
    assert.deepEqual(metricLines(await registry.metrics(), name), []);
  });

  test('runs repeat every interval without overlapping; failures are counted and keep the last good values', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const registry = createMetrics().registry;
      const metrics = createAuditMetrics(registry);
      let runs = 0;
      // The run in progress ends when the test says so.
      let finish: (() => void) | undefined;
      const report = {
        findings: [],
        summary: { objects: 5, stuckDeletions: 2 },
        finishedAt: '2026-11-21T12:00:00Z',
      } as unknown as AuditReport;
      const loop = startAuditLoop({
        intervalMs: 5,
        metrics,
        logger: silentLogger(),
        run: async () => {
          runs++;
          await new Promise<void>((resolve) => (finish = resolve));
          if (runs > 1) throw new Error('API server gone');
          return { report, ownerLabel: (owner: string) => owner };
        },
      });
      const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
      const end = async (): Promise<void> => {
        finish?.();
        finish = undefined;
        await flush();
      };

      mock.timers.tick(1);
      assert.equal(runs, 1, 'the first run starts at once');
      // However long a run takes, the next one waits for it: no overlap.
      mock.timers.tick(1_000);
      assert.equal(runs, 1);
      for (let run = 2; run <= 4; run++) {
        await end();
        // The next run is due an interval after the last one ended, not before.
        mock.timers.tick(4);
        assert.equal(runs, run - 1);
        mock.timers.tick(1);
        assert.equal(runs, run);
      }
      // Stopped while run 4 is in progress: it ends, and nothing is scheduled after it.
      loop.stop();
      await end();
      await loop.settled();
      mock.timers.tick(1_000);
      assert.equal(runs, 4, 'no run after stop()');

      const text = await registry.metrics();
      assert.deepEqual(metricLines(text, 'hookkeeper_stuck_deletions'), ['hookkeeper_stuck_deletions 2']);
      assert.deepEqual(metricLines(text, 'hookkeeper_audit_last_run_timestamp_seconds'), [
        `hookkeeper_audit_last_run_timestamp_seconds ${Date.parse('2026-11-21T12:00:00Z') / 1000}`,
      ]);
      assert.deepEqual(metricLines(text, 'hookkeeper_audit_failures_total'), ['hookkeeper_audit_failures_total 3']);
    } finally {
      mock.timers.reset();
    }
  });

  test('stop() between runs: the next run never starts', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let runs = 0;
      const loop = startAuditLoop({
        intervalMs: 5,
        metrics: createAuditMetrics(createMetrics().registry),
        logger: silentLogger(),
        run: () => {
          runs++;
          return Promise.resolve({
            report: { findings: [], summary: {}, finishedAt: '2026-11-21T12:00:00Z' } as unknown as AuditReport,
            ownerLabel: (owner: string) => owner,
          });
        },
      });
      mock.timers.tick(1);
      await loop.settled();
      assert.equal(runs, 1);
      loop.stop();
      mock.timers.tick(1_000);
      assert.equal(runs, 1);
    } finally {
      mock.timers.reset();
    }
  });
});
