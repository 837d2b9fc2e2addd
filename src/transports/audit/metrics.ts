// The background audit's findings as Prometheus gauges on the server's registry (Metrics.registry), so alerts
// can fire on a stuck deletion or a new violation without anyone running `hookkeeper audit`.
import { Counter, Gauge, type Registry } from 'prom-client';
import { VALIDATING } from '../../core/registry.js';
import { blockingStage } from '../../rules/stuck-deletion/rule.js';
import type { Stage } from '../../core/types.js';
import type { AuditFinding, AuditReport } from './report.js';

/** The rules the audit runs (src/core/registry.ts): each gets a series, so "no violations" is 0, not absent. */
const AUDITED_RULES = VALIDATING.audit.map((r) => r.id);

/** A hook owner as a label value, bounded as src/core/owner-label.ts says, in the object's namespace. */
export type OwnerLabel = (owner: string, namespace: string | undefined) => string;

export interface AuditMetrics {
  /** Replaces every gauge with the values of a finished run. */
  record(report: AuditReport, ownerLabel: OwnerLabel): void;
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
    help: 'Objects that have waited on their lifecycle hooks for longer than the stuck-after threshold, at the last audit.',
    registers: [registry],
  });
  const stuckBy = new Gauge({
    name: 'hookkeeper_stuck_deletion_machines',
    help: 'Machines that have waited on hooks for longer than the stuck-after threshold, at the last audit, by the stage they wait at and the owner of a hook there (a Machine counts once per owner; "other" when neither the policy nor the RBAC grants name it).',
    labelNames: ['stage', 'owner'],
    registers: [registry],
  });
  const stuckSince = new Gauge({
    name: 'hookkeeper_stuck_deletion_oldest_timestamp_seconds',
    help: 'The earliest start of the wait at the stage among the Machines of hookkeeper_stuck_deletion_machines with the same labels (where the Machine records it: Cluster API status.deletion, the Machine API Drained condition; else its deletionTimestamp), as a Unix timestamp.',
    labelNames: ['stage', 'owner'],
    registers: [registry],
  });
  const quorum = new Gauge({
    name: 'hookkeeper_quorum_unprotected_deleting_machines',
    help: 'Control-plane Machines deleting without their quorum hook (policy quorumHooks), at the last audit, by quorum hook, namespace and cluster (the cluster label\'s value, "" without one); 2 or more is quorum-at-risk. Only clusters with one have a series.',
    labelNames: ['quorum', 'namespace', 'cluster'],
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
    record(report, ownerLabel) {
      const counts = new Map<string, number>(AUDITED_RULES.map((r) => [r, 0]));
      for (const f of report.findings) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
      violations.reset();
      for (const [rule, n] of counts) violations.set({ rule }, n);
      stuck.set(report.summary.stuckDeletions);
      stuckBy.reset();
      stuckSince.reset();
      for (const s of stuckSeries(report.findings, ownerLabel)) {
        const labels = { stage: s.stage, owner: s.owner };
        stuckBy.set(labels, s.machines);
        stuckSince.set(labels, s.oldestMs / 1000);
      }
      // Reset first: a cluster whose deletions are protected again (or done) drops its series.
      quorum.reset();
      for (const c of report.quorum ?? [])
        quorum.set({ quorum: c.quorum, namespace: c.namespace, cluster: c.cluster }, c.machines.length);
      objects.set(report.summary.objects);
      lastRun.set(Date.parse(report.finishedAt) / 1000);
    },
    failed() {
      failures.inc();
    },
  };
}

interface StuckSeries {
  stage: Stage;
  owner: string;
  machines: number;
  oldestMs: number;
}

/** The stuck-deletion findings (one per hook) grouped by Machine, each counted at the stage it waits at. */
function stuckSeries(findings: readonly AuditFinding[], ownerLabel: OwnerLabel): StuckSeries[] {
  const byMachine = new Map<string, AuditFinding[]>();
  for (const f of findings) {
    if (f.rule !== 'stuck-deletion' || !f.hook) continue;
    const key = JSON.stringify([f.object.apiVersion, f.object.kind, f.object.namespace, f.object.name]);
    byMachine.set(key, [...(byMachine.get(key) ?? []), f]);
  }
  const series = new Map<string, StuckSeries>();
  for (const hooks of byMachine.values()) {
    const stage = blockingStage(hooks.map((f) => f.hook?.stage).filter((s) => s !== undefined));
    const since = Date.parse(hooks[0]?.waitingSince ?? hooks[0]?.deletionTimestamp ?? '');
    if (stage === undefined || Number.isNaN(since)) continue;
    const owners = new Set(
      hooks.filter((f) => f.hook?.stage === stage).map((f) => ownerLabel(f.hook?.owner ?? '', f.object.namespace)),
    );
    for (const owner of owners) {
      const key = JSON.stringify([stage, owner]);
      const s = series.get(key) ?? { stage, owner, machines: 0, oldestMs: since };
      s.machines++;
      s.oldestMs = Math.min(s.oldestMs, since);
      series.set(key, s);
    }
  }
  return [...series.values()];
}
