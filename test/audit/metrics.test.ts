// `serve --audit-interval`: the background audit's findings as metrics on the server's registry, runs that never
// overlap, and failures that are counted while the last good values stay.
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { startAuditLoop, startBackgroundAudit } from '../../src/audit/background.js';
import { createAuditMetrics } from '../../src/audit/metrics.js';
import type { AuditReport } from '../../src/audit/report.js';
import { DEFAULT_POLICY } from '../../src/config/defaults.js';
import { RULES } from '../../src/core/registry.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../src/kube/types.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/server/metrics.js';
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
          return report;
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
            findings: [],
            summary: {},
            finishedAt: '2026-11-21T12:00:00Z',
          } as unknown as AuditReport);
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
