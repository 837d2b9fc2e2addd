// `audit --output openreports`: openreports.io/v1alpha1 Reports (one per namespace) and a ClusterReport
// (cluster-scoped objects), where Kyverno's and Kubewarden's reports moved in 2025 (openreports/reports-api).
// The report names hookkeeper as its `source` once; each result still names it too, as the PolicyReports do.
import type { AuditReport } from './report.js';
import { reportObjects, type ReportApi } from './report-objects.js';

export const OPEN_REPORTS_API: ReportApi = Object.freeze({
  apiVersion: 'openreports.io/v1alpha1',
  namespacedKind: 'Report',
  clusterKind: 'ClusterReport',
  reportSource: true,
});

export function openReports(report: AuditReport): Array<Record<string, unknown>> {
  return reportObjects(report, OPEN_REPORTS_API);
}
