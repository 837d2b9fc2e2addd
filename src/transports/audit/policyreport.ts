// `audit --output policyreport`: wgpolicyk8s.io/v1alpha2 PolicyReports (one per namespace) and a ClusterPolicyReport
// (cluster-scoped objects), the API many dashboards still collect (kubernetes-sigs/wg-policy-prototypes).
import type { AuditReport } from './report.js';
import { reportObjects, type ReportApi } from './report-objects.js';

export const POLICY_REPORT_API: ReportApi = Object.freeze({
  apiVersion: 'wgpolicyk8s.io/v1alpha2',
  namespacedKind: 'PolicyReport',
  clusterKind: 'ClusterPolicyReport',
  reportSource: false,
});

export function policyReports(report: AuditReport): Array<Record<string, unknown>> {
  return reportObjects(report, POLICY_REPORT_API);
}
