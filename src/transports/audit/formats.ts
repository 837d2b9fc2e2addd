// `audit --output`: every format, once. A new format is one renderer file plus one line here; the CLI's choices,
// its help and its check of --output all come from this registry, so no branch can fall through to another format.
import { loadYamlRenderer, renderJson, type OutputFormat, type Render } from '../../infrastructure/format.js';
import type { AuditReport } from './report.js';

export interface AuditRenderOptions {
  /** stdout is a terminal: the table may use colour. */
  tty: boolean;
}

export interface AuditFormat extends OutputFormat<AuditReport, AuditRenderOptions> {
  /** The format lists objects without findings too (report APIs count passes), so the audit must record them. */
  readonly recordsPasses: boolean;
}

/** Kubernetes report objects as a YAML stream, ready for `kubectl apply -f -`. */
async function yamlStream(
  build: (report: AuditReport) => Array<Record<string, unknown>>,
): Promise<Render<AuditReport, AuditRenderOptions>> {
  const YAML = await import('yaml');
  return (report) =>
    build(report)
      .map((r) => YAML.stringify(r))
      .join('---\n');
}

export const AUDIT_FORMATS = {
  text: { recordsPasses: false, load: async () => (await import('./table.js')).renderAudit },
  json: { recordsPasses: false, load: () => Promise.resolve(renderJson) },
  yaml: { recordsPasses: false, load: loadYamlRenderer },
  policyreport: {
    help: 'wgpolicyk8s.io/v1alpha2 PolicyReport and ClusterPolicyReport',
    recordsPasses: true,
    load: async () => yamlStream((await import('./policyreport.js')).policyReports),
  },
  openreports: {
    help: 'openreports.io/v1alpha1 Report and ClusterReport',
    recordsPasses: true,
    load: async () => yamlStream((await import('./openreports.js')).openReports),
  },
} as const satisfies Record<string, AuditFormat>;

export type AuditFormatName = keyof typeof AUDIT_FORMATS;
