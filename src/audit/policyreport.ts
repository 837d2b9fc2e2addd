// `audit --output policyreport`: the findings as wgpolicyk8s.io/v1alpha2 PolicyReports (one per namespace) and
// a ClusterPolicyReport (cluster-scoped objects), the format Kyverno and Kubewarden users already collect.
// Field names follow the wg-policy-prototypes v1alpha2 CRD (results[].policy/rule/result/scored/resources/...).
import type { AuditFinding, AuditObjectRef, AuditReport } from './report.js';

export const POLICY_NAME = 'hookkeeper';
const CATEGORY = 'Machine lifecycle hooks';

type Result = Record<string, unknown>;

function resourceRef(o: AuditObjectRef): Record<string, string> {
  return { apiVersion: o.apiVersion, kind: o.kind, ...(o.namespace ? { namespace: o.namespace } : {}), name: o.name, ...(o.uid ? { uid: o.uid } : {}) };
}

function findingResult(f: AuditFinding, timestamp: Result): Result {
  // properties is map[string]string in the CRD.
  const properties: Record<string, string> = {
    ...(f.path ? { path: f.path } : {}),
    ...(f.fix ? { fix: f.fix } : {}),
    ...(f.hook ? { hookStage: f.hook.stage, hookName: f.hook.name, hookOwner: f.hook.owner } : {}),
    ...(f.deletionTimestamp ? { deletionTimestamp: f.deletionTimestamp } : {}),
    ...(f.deletingForSeconds !== undefined ? { deletingForSeconds: String(f.deletingForSeconds) } : {}),
  };
  return {
    source: POLICY_NAME,
    policy: POLICY_NAME,
    rule: f.rule,
    category: CATEGORY,
    // A deletion that cannot finish is worse than a hook that breaks a convention.
    severity: f.rule === 'stuck-deletion' || f.rule === 'orphaned-owner' ? 'high' : 'medium',
    timestamp,
    result: f.result,
    // v1alpha2: warn is "not met, and the policy is not scored".
    scored: f.result !== 'warn',
    resources: [resourceRef(f.object)],
    message: f.message,
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
  };
}

function passResult(o: AuditObjectRef, timestamp: Result): Result {
  return {
    source: POLICY_NAME, policy: POLICY_NAME, category: CATEGORY, timestamp, result: 'pass', scored: true,
    resources: [resourceRef(o)], message: `no findings: ${o.kind} ${o.name} meets every hookkeeper rule that applies to it`,
  };
}

/** One report per namespace with something to say (a finding or a pass), then the cluster-scoped one, if any. */
export function policyReports(report: AuditReport): Array<Record<string, unknown>> {
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
  return [...byNamespace].sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b))).map(([namespace, results]) => {
    const count = (r: string): number => results.filter((x) => x['result'] === r).length;
    return {
      apiVersion: 'wgpolicyk8s.io/v1alpha2',
      kind: namespace === '' ? 'ClusterPolicyReport' : 'PolicyReport',
      metadata: { name: POLICY_NAME, ...(namespace === '' ? {} : { namespace }), labels },
      summary: { pass: count('pass'), fail: count('fail'), warn: count('warn'), error: 0, skip: 0 },
      results,
    };
  });
}
