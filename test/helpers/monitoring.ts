// The monitoring that ships (webhook-config/components/monitoring): its alert rules and dashboard as the tests read
// them, the metric names their expressions use, and the API server's metrics among those, which the end-to-end suite
// finds on a real kube-apiserver (test/e2e/static-manifests.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../src/compilers/deploy/render.js';

export const MONITORING_DIR = 'webhook-config/components/monitoring';
export const RULE_FILE = `${MONITORING_DIR}/prometheus-rule.yaml`;
export const DASHBOARD_FILE = `${MONITORING_DIR}/grafana-dashboard.json`;

export interface AlertRule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface PrometheusRule {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: { groups: { name: string; rules: AlertRule[] }[] };
}
interface Panel {
  title?: string;
  type: string;
  targets?: { expr: string }[];
}

export function shippedRule(): PrometheusRule {
  return parse(readFileSync(join(packageRoot(), RULE_FILE), 'utf8')) as PrometheusRule;
}

export function shippedDashboardText(): string {
  return readFileSync(join(packageRoot(), DASHBOARD_FILE), 'utf8');
}

/** Every target's expression of the dashboard, with its panel's title. */
export function dashboardExpressions(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(shippedDashboardText()) as { panels: Panel[] };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title ?? p.type, expr: t.expr })));
}

export function ruleExpressions(): string[] {
  return shippedRule().spec.groups.flatMap((g) => g.rules.map((r) => r.expr));
}

/**
 * The API server's own metrics the rules and the dashboard use (families: a histogram's name without _bucket). Seen
 * on kube-apiserver v1.36.5 (ManifestBasedAdmissionControlConfig on) and v1.37.2 with hookkeeper's static manifests.
 */
export const APISERVER_METRICS = [
  'apiserver_validating_admission_policy_check_total',
  'apiserver_validating_admission_policy_check_duration_seconds',
  'apiserver_mutating_admission_policy_check_total',
  'apiserver_manifest_admission_config_controller_automatic_reloads_total',
  'apiserver_manifest_admission_config_controller_automatic_reload_last_timestamp_seconds',
] as const;

/** The PromQL words the shipped expressions use; any other name in them is a metric's. */
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'time',
  'rate',
  'increase',
  'histogram_quantile',
  'or',
  'unless',
  'offset',
]);

/**
 * The metric names of a PromQL expression: its names once strings, label matchers, ranges and grouping clauses are
 * taken out, less the PromQL words above. A function the list lacks shows up as a metric that no /metrics has.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = bare.match(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b/g) ?? [];
  return [...new Set(names.filter((n) => !PROMQL_WORDS.has(n)))];
}

/** A histogram series' family: X for X_bucket, X_sum and X_count. */
export function family(name: string, histograms: ReadonlySet<string>): string {
  const m = /^(.*)_(?:bucket|sum|count)$/.exec(name);
  return m?.[1] !== undefined && histograms.has(m[1]) ? m[1] : name;
}
