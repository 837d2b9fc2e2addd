// The background audit's findings as Prometheus gauges on the server's registry (Metrics.registry), so alerts
// can fire on a stuck deletion or a new violation without anyone running `hookkeeper audit`.
import { Counter, Gauge, type Registry } from 'prom-client';
import { VALIDATING } from '../core/registry.js';
import type { AuditReport } from './report.js';

/** The rules the audit runs (src/core/registry.ts): each gets a series, so "no violations" is 0, not absent. */
const AUDITED_RULES = VALIDATING.audit.map((r) => r.id);

export interface AuditMetrics {
  /** Replaces every gauge with the values of a finished run. */
  record(report: AuditReport): void;
  /** A run that could not finish: the gauges keep the last good run's values. */
  failed(): void;
}

export function createAuditMetrics(registry: Registry): AuditMetrics {
  const violations = new Gauge({
    name: 'hookkeeper_audit_violations',
    help: 'Findings of the last background audit, by rule (fail and warn alike), including stuck-deletion and orphaned-owner.',
    labelNames: ['rule'],
    registers: [registry],
  });
  const stuck = new Gauge({
    name: 'hookkeeper_stuck_deletions',
    help: 'Objects deleting for longer than the stuck-after threshold with lifecycle hooks still present, at the last audit.',
    registers: [registry],
  });
  const objects = new Gauge({
    name: 'hookkeeper_audit_objects',
    help: 'Objects the last background audit evaluated.',
    registers: [registry],
  });
  const lastRun = new Gauge({
    name: 'hookkeeper_audit_last_run_timestamp_seconds',
    help: 'When the last successful background audit finished, as a Unix timestamp.',
    registers: [registry],
  });
  const failures = new Counter({
    name: 'hookkeeper_audit_failures_total',
    help: 'Background audit runs that failed (cluster unreachable, forbidden, CRDs missing).',
    registers: [registry],
  });
  return {
    record(report) {
      const counts = new Map<string, number>(AUDITED_RULES.map((r) => [r, 0]));
      for (const f of report.findings) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
      violations.reset();
      for (const [rule, n] of counts) violations.set({ rule }, n);
      stuck.set(report.summary.stuckDeletions);
      objects.set(report.summary.objects);
      lastRun.set(Date.parse(report.finishedAt) / 1000);
    },
    failed() {
      failures.inc();
    },
  };
}
