// The audit's findings and its summary: violations as findings in report order, and what the run counted.
import { CLUSTER_STATE } from '../../core/registry.js';
import type { Violation } from '../../core/types.js';
import type { AuditFinding, AuditObjectRef, AuditReport } from './report.js';

function auditFinding(v: Violation, result: 'fail' | 'warn', object: AuditObjectRef): AuditFinding {
  return {
    rule: v.rule,
    result,
    object,
    path: v.path,
    message: v.message,
    ...(v.fix ? { fix: v.fix } : {}),
    ...(v.hook ? { hook: v.hook } : {}),
    ...(v.deletion
      ? {
          deletionTimestamp: v.deletion.deletionTimestamp,
          deletingForSeconds: v.deletion.deletingForSeconds,
          waitingSince: v.deletion.waitingSince,
          waitingForSeconds: v.deletion.waitingForSeconds,
          waitingSinceFrom: v.deletion.waitingSinceFrom,
        }
      : {}),
  };
}

/** The object's own findings (fail, then warn), then those about the cluster's state (stuck deletions, orphaned owners). */
export function auditFindings(
  denials: readonly Violation[],
  warnings: readonly Violation[],
  object: AuditObjectRef,
): AuditFinding[] {
  const out: AuditFinding[] = [];
  for (const late of [false, true]) {
    for (const v of denials) if (CLUSTER_STATE.has(v.rule) === late) out.push(auditFinding(v, 'fail', object));
    for (const v of warnings) if (CLUSTER_STATE.has(v.rule) === late) out.push(auditFinding(v, 'warn', object));
  }
  return out;
}

/** What the run keeps: findings, and counts (only findings are kept, so memory stays flat in the number of objects). */
export interface Tally {
  findings: AuditFinding[];
  /** References to objects without findings, when the report lists them. */
  passed: AuditObjectRef[] | undefined;
  objects: number;
  passCount: number;
  /** resource/namespace/name of each object with a stuck deletion. */
  stuck: Set<string>;
}

export function newTally(recordPasses: boolean | undefined): Tally {
  return { findings: [], passed: recordPasses ? [] : undefined, objects: 0, passCount: 0, stuck: new Set() };
}

/** Keeps one object's findings (already counted in `objects`). */
export function tallyObject(tally: Tally, resource: string, ref: AuditObjectRef, found: readonly AuditFinding[]): void {
  if (found.some((f) => f.rule === 'stuck-deletion')) tally.stuck.add(`${resource}/${ref.namespace ?? ''}/${ref.name}`);
  for (const f of found) tally.findings.push(f);
  if (found.length === 0) {
    tally.passCount++;
    tally.passed?.push(ref);
  }
}

export function summarize(tally: Tally): AuditReport['summary'] {
  const { findings } = tally;
  return {
    objects: tally.objects,
    passed: tally.passCount,
    fail: findings.filter((f) => f.result === 'fail').length,
    warn: findings.filter((f) => f.result === 'warn').length,
    stuckDeletions: tally.stuck.size,
    orphanedHooks: findings.filter((f) => f.rule === 'orphaned-owner').length,
  };
}
