// The result of an audit run (`hookkeeper audit --output json`): a stable, documented shape from which the
// table, the PolicyReports and the metrics are made.
import type { HookRef, RuleId } from '../core/types.js';

/** Engine rules, plus the two findings only an audit can make. */
export type AuditRule = RuleId | 'stuck-deletion' | 'orphaned-owner';
export const AUDIT_ONLY_RULES = ['stuck-deletion', 'orphaned-owner'] as const;

export interface AuditObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

export interface AuditFinding {
  rule: AuditRule;
  /** `fail` counts against the cluster (exit 1); `warn` is a rule under warn enforcement. */
  result: 'fail' | 'warn';
  object: AuditObjectRef;
  path?: string;
  message: string;
  fix?: string;
  hook?: HookRef;
  /** stuck-deletion: when deletion was requested and how long ago, at the audit's start. */
  deletionTimestamp?: string;
  deletingForSeconds?: number;
}

export interface ResourceStatus {
  /** plural.group, e.g. machines.machine.openshift.io */
  resource: string;
  version: string;
  kind: string;
  /** `not-installed`: the API server does not serve it (no CRD); skipped, not an error. */
  status: 'audited' | 'not-installed';
  objects: number;
}

export interface AuditReport {
  apiVersion: 'hookkeeper.io/v1alpha1';
  kind: 'AuditReport';
  startedAt: string;
  finishedAt: string;
  /** Absent: all namespaces. */
  namespace?: string;
  stuckAfterSeconds: number;
  resources: ResourceStatus[];
  notes: string[];
  findings: AuditFinding[];
  summary: {
    objects: number;
    /** Objects without any finding. */
    passed: number;
    fail: number;
    warn: number;
    /** Deleting objects held by hooks for longer than stuckAfterSeconds. */
    stuckDeletions: number;
    /** Hooks whose owner's registered service accounts are all gone. */
    orphanedHooks: number;
  };
  /** Objects without findings; recorded only when asked (PolicyReports list them as `pass`). */
  passed?: AuditObjectRef[];
}

export function objectLabel(o: AuditObjectRef): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

/** 93784000 -> "1d2h", 7500000 -> "2h5m", 90000 -> "1m30s": the two largest units, for messages. */
export function formatDuration(ms: number): string {
  const units: Array<[string, number]> = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]];
  const parts: string[] = [];
  let rest = Math.max(0, Math.floor(ms));
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${unit}`);
    if (parts.length === 2) break;
  }
  const text = parts.filter((p, i) => i === 0 || !p.startsWith('0')).join('');
  return text === '' ? '0s' : text;
}
