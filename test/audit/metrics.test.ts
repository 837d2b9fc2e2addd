// `serve --audit-interval`: the background audit's findings as metrics on the server's registry, runs that never
// overlap, and failures that are counted while the last good values stay.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startAuditLoop, startBackgroundAudit } from '../../src/audit/background.js';
import { createAuditMetrics } from '../../src/audit/metrics.js';
import type { AuditReport } from '../../src/audit/report.js';
import { DEFAULT_POLICY } from '../../src/config/defaults.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../src/kube/types.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/server/metrics.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { eventually } from '../helpers/tls.js';

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
      assert.deepEqual(metricLines(text, 'hookkeeper_audit_violations'), [
        'hookkeeper_audit_violations{rule="hook-naming"} 0',
        'hookkeeper_audit_violations{rule="hook-count"} 0',
        'hookkeeper_audit_violations{rule="single-owner"} 0',
        'hookkeeper_audit_violations{rule="owner-only-removal"} 0',
        'hookkeeper_audit_violations{rule="deletion-freeze"} 0',
        'hookkeeper_audit_violations{rule="owner-references"} 0',
        'hookkeeper_audit_violations{rule="default-hooks"} 1',
        ...metricLines(text, 'hookkeeper_audit_violations{rule="').filter((l) =>
          /rule="(capi-migration|child-)/.test(l),
        ),
        'hookkeeper_audit_violations{rule="stuck-deletion"} 1',
        'hookkeeper_audit_violations{rule="orphaned-owner"} 0',
        'hookkeeper_audit_violations{rule="unprotected-owner"} 0',
      ]);
      assert.deepEqual(metricLines(text, 'hookkeeper_stuck_deletions'), ['hookkeeper_stuck_deletions 1']);
      assert.deepEqual(metricLines(text, 'hookkeeper_audit_objects'), ['hookkeeper_audit_objects 2']);
      assert.deepEqual(metricLines(text, 'hookkeeper_audit_failures_total'), ['hookkeeper_audit_failures_total 0']);
      const last = Number(metricLines(text, 'hookkeeper_audit_last_run_timestamp_seconds')[0]?.split(' ')[1]);
      assert.ok(Math.abs(last - Date.now() / 1000) < 60, `last run ${last}`);
    } finally {
      loop.stop();
      await loop.settled();
    }
  });

  test('runs repeat every interval without overlapping; failures are counted and keep the last good values', async () => {
    const registry = createMetrics().registry;
    const metrics = createAuditMetrics(registry);
    let running = 0;
    let overlap = false;
    let runs = 0;
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
        running++;
        overlap ||= running > 1;
        await new Promise((r) => setTimeout(r, 15));
        running--;
        if (runs > 1) throw new Error('API server gone');
        return report;
      },
    });
    await eventually(() => runs >= 4);
    loop.stop();
    await loop.settled();
    const settledRuns = runs;
    await new Promise((r) => setTimeout(r, 40));
    assert.equal(runs, settledRuns, 'no run after stop()');
    assert.equal(overlap, false);
    const text = await registry.metrics();
    assert.deepEqual(metricLines(text, 'hookkeeper_stuck_deletions'), ['hookkeeper_stuck_deletions 2']);
    assert.deepEqual(metricLines(text, 'hookkeeper_audit_last_run_timestamp_seconds'), [
      `hookkeeper_audit_last_run_timestamp_seconds ${Date.parse('2026-11-21T12:00:00Z') / 1000}`,
    ]);
    assert.deepEqual(metricLines(text, 'hookkeeper_audit_failures_total'), [
      `hookkeeper_audit_failures_total ${settledRuns - 1}`,
    ]);
  });
});
