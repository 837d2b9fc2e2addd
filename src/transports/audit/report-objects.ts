// The findings as Kubernetes report objects: one per namespace with something to say, plus one cluster-scoped.
// wgpolicyk8s.io/v1alpha2 PolicyReports and their successor, openreports.io/v1alpha1 Reports, share the result and
// summary shapes field for field (results[].policy/rule/result/scored/resources/properties/...); a ReportApi names
// what differs: group and version, the two kinds, and whether the report itself names its source.
import type { AuditFinding, AuditObjectRef, AuditReport } from './report.js';

export const POLICY_NAME = 'hookkeeper';
const CATEGORY = 'Machine lifecycle hooks';

export interface ReportApi {
  apiVersion: string;
  /** Of the report for one namespace's objects. */
  namespacedKind: string;
  /** Of the report for cluster-scoped objects. */
  clusterKind: string;
  /** The report carries a top-level `source` (openreports.io: the engine that wrote every result in it). */
  reportSource: boolean;
}

type Result = Record<string, unknown>;

/** A deletion that cannot finish, or one that can cost etcd quorum, is worse than a hook that breaks a convention. */
const HIGH: ReadonlySet<string> = new Set(['stuck-deletion', 'orphaned-owner', 'quorum-at-risk']);

function resourceRef(o: AuditObjectRef): Record<string, string> {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    name: o.name,
    ...(o.uid ? { uid: o.uid } : {}),
  };
}

function findingResult(f: AuditFinding, timestamp: Result): Result {
  // properties is map[string]string in both CRDs.
  const properties: Record<string, string> = {
    ...(f.path ? { path: f.path } : {}),
    ...(f.fix ? { fix: f.fix } : {}),
    ...(f.hook ? { hookStage: f.hook.stage, hookName: f.hook.name, hookOwner: f.hook.owner } : {}),
    ...(f.deletionTimestamp ? { deletionTimestamp: f.deletionTimestamp } : {}),
    ...(f.deletingForSeconds !== undefined ? { deletingForSeconds: String(f.deletingForSeconds) } : {}),
    ...(f.waitingSince ? { waitingSince: f.waitingSince } : {}),
    ...(f.waitingForSeconds !== undefined ? { waitingForSeconds: String(f.waitingForSeconds) } : {}),
    ...(f.waitingSinceFrom ? { waitingSinceFrom: f.waitingSinceFrom } : {}),
  };
  return {
    source: POLICY_NAME,
    policy: POLICY_NAME,
    rule: f.rule,
    category: CATEGORY,
    severity: HIGH.has(f.rule) ? 'high' : 'medium',
    timestamp,
    result: f.result,
    // warn is "not met, and the policy is not scored" in both APIs.
    scored: f.result !== 'warn',
    resources: [resourceRef(f.object)],
    message: f.message,
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
  };
}

function passResult(o: AuditObjectRef, timestamp: Result): Result {
  return {
    source: POLICY_NAME,
    policy: POLICY_NAME,
    category: CATEGORY,
    timestamp,
    result: 'pass',
    scored: true,
    resources: [resourceRef(o)],
    message: `no findings: ${o.kind} ${o.name} meets every hookkeeper rule that applies to it`,
  };
}

/** One report per namespace with something to say (a finding or a pass), then the cluster-scoped one, if any. */
export function reportObjects(report: AuditReport, api: ReportApi): Array<Record<string, unknown>> {
  const started = Date.parse(report.startedAt);
  const timestamp = { seconds: Math.floor(started / 1000), nanos: (started % 1000) * 1e6 };
  const byNamespace = new Map<string, Result[]>();
  const add = (namespace: string | undefined, r: Result): void => {
    const key = namespace ?? '';
    const list = byNamespace.get(key);
    if (list) list.push(r);
    else byNamespace.set(key, [r]);
  };
  for (const f of report.findings) add(f.object.namespace, findingResult(f, timestamp));
  for (const o of report.passed ?? []) add(o.namespace, passResult(o, timestamp));

  const labels = { 'app.kubernetes.io/managed-by': 'hookkeeper' };
  return [...byNamespace]
    .sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)))
    .map(([namespace, results]) => {
      const count = (r: string): number => results.filter((x) => x['result'] === r).length;
      return {
        apiVersion: api.apiVersion,
        kind: namespace === '' ? api.clusterKind : api.namespacedKind,
        metadata: { name: POLICY_NAME, ...(namespace === '' ? {} : { namespace }), labels },
        ...(api.reportSource ? { source: POLICY_NAME } : {}),
        summary: { pass: count('pass'), fail: count('fail'), warn: count('warn'), error: 0, skip: 0 },
        results,
      };
    });
}
