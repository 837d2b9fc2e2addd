// The monitoring that ships (webhook-config/components/monitoring; the chart links to the same files): the alerts
// pass `promtool check rules` and `promtool test rules` (prometheus-rule.promtool.yaml: every alert firing and not
// firing), every dashboard expression parses, every metric they use is on a running hookkeeper's /metrics or is an
// API server metric the end-to-end suite finds on a real kube-apiserver, and the chart and the component install the
// same rules and dashboard. The promtool tests skip without promtool unless CI=true, as the helm tests do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parse, stringify } from 'yaml';
import { startBackgroundAudit } from '../../src/transports/audit/background.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { CrdNotInstalled } from '../../src/infrastructure/kube/types.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import { startServer } from '../../src/transports/server/serve.js';
import { chartDir, findHelm, helmSkip, helmTemplate, requireHelm, runHelm } from '../helpers/helm.js';
import { readDoc } from '../helpers/docs.js';
import { findKustomize, kustomizeBuild, NO_KUSTOMIZE } from '../helpers/kustomize.js';
import {
  APISERVER_METRICS,
  DASHBOARD_FILE,
  dashboardExpressions,
  family,
  metricNames,
  MONITORING_DIR,
  type PrometheusRule,
  RULE_FILE,
  ruleExpressions,
  shippedDashboardText,
  shippedRule,
} from '../helpers/monitoring.js';
import { findPromtool, promtoolSkip, requirePromtool, runPromtool } from '../helpers/promtool.js';
import { httpsRequest, makePki } from '../helpers/tls.js';
import { eventually } from '../helpers/wait.js';

const root = packageRoot();
const promtool = findPromtool();
const needsPromtool = { skip: promtoolSkip(promtool) };
const helm = findHelm();
const kustomize = findKustomize();
const PROMTOOL_TESTS = join(root, 'test', 'deploy', 'prometheus-rule.promtool.yaml');

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
  data?: Record<string, string>;
}

const alerts = () => shippedRule().spec.groups.flatMap((g) => g.rules.filter((r) => r.alert !== undefined));

/** Writes the shipped spec as a Prometheus rule file (what promtool reads) in a new directory. */
async function ruleFileDir(t: { after: (fn: () => Promise<void>) => void }, spec: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-promtool-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'rules.yaml'), stringify(spec));
  return dir;
}

test("the chart's monitoring files are links to the component's, not copies", () => {
  for (const file of [RULE_FILE, DASHBOARD_FILE]) {
    const link = join(chartDir(root), 'files', 'monitoring', file.split('/').at(-1) ?? '');
    assert.ok(lstatSync(link).isSymbolicLink(), `${relative(root, link)} must be a symbolic link to ${file}`);
    assert.equal(readlinkSync(link), relative(dirname(link), join(root, file)));
  }
});

test('every alert has a severity, a summary and a description naming the stage and owner its labels carry', () => {
  const names = alerts().map((a) => a.alert);
  assert.ok(names.length >= 9, names.join(', '));
  for (const a of alerts()) {
    assert.match(a.labels?.['severity'] ?? '', /^(warning|critical)$/, `${a.alert}: severity`);
    for (const key of ['summary', 'description']) {
      const text = a.annotations?.[key] ?? '';
      assert.ok(text.length > 0, `${a.alert}: ${key}`);
      for (const label of ['owner', 'stage', 'rule', 'policy', 'plugin'])
        if (new RegExp(`\\bby \\([^)]*\\b${label}\\b`).test(a.expr))
          assert.match(text, new RegExp(`\\{\\{ \\$labels\\.${label} \\}\\}`), `${a.alert}: its ${key} names ${label}`);
    }
  }
});

test("every metric the rules and the dashboard use is on a running hookkeeper's /metrics or the API server's, and each of hookkeeper's is documented", async (t) => {
  // serve's composition: the server's registry, with the background audit's metrics on it (serve --audit-interval).
  const pki = await makePki();
  t.after(() => rm(pki.dir, { recursive: true, force: true }));
  const metrics = createMetrics({ defaultMetrics: true });
  const server = await startServer(
    {
      host: '127.0.0.1',
      port: 0,
      devCertDir: '/nonexistent',
      tlsCertFile: pki.certFile,
      tlsKeyFile: pki.keyFile,
      reloadIntervalMs: 60_000,
      shutdownGraceMs: 1000,
    },
    silentLogger(),
    metrics,
  );
  t.after(() => server.shutdown());
  const audit = startBackgroundAudit({
    intervalMs: 3_600_000,
    stuckAfterMs: 1_800_000,
    policy: () => DEFAULT_POLICY,
    lister: {
      // eslint-disable-next-line require-yield -- a cluster without the Machine CRDs: the run fails, the metrics stay
      async *list(r) {
        throw new CrdNotInstalled(r);
      },
    },
    registry: metrics.registry,
    logger: silentLogger(),
  });
  t.after(async () => {
    audit.stop();
    await audit.settled();
  });
  const ca = await readFile(pki.caFile);
  let exposition = '';
  await eventually(async () => {
    exposition = (await httpsRequest({ port: server.port, path: '/metrics', ca })).body;
    return exposition.includes('# TYPE hookkeeper_stuck_deletion_machines ');
  });
  const types = new Map(
    [...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? ''] as const),
  );
  const histograms = new Set([...types].filter(([, type]) => type === 'histogram').map(([name]) => name));
  histograms.add('apiserver_validating_admission_policy_check_duration_seconds');
  const apiserver = new Set<string>(APISERVER_METRICS);
  const used = [...ruleExpressions(), ...dashboardExpressions().map((d) => d.expr)].flatMap(metricNames);
  assert.ok(used.length > 10, used.join(', '));
  // Every series hookkeeper exports is in docs/operations.md's tables (the Node.js process metrics as a family).
  const operations = readDoc('docs/operations.md');
  const undocumented = [...types.keys()].filter(
    (n) => !/^hookkeeper_(process|nodejs)_/.test(n) && !operations.includes(`\`${n}`),
  );
  assert.deepEqual(undocumented, [], 'metrics missing from docs/operations.md');
  for (const name of new Set(used)) {
    const f = family(name, histograms);
    if (f.startsWith('apiserver_')) assert.ok(apiserver.has(f), `${name}: not in APISERVER_METRICS`);
    else assert.ok(types.has(f), `${name}: not on hookkeeper's /metrics`);
  }
});

test("the latency alert fires at 80% of the webhooks' timeoutSeconds, and the histogram has buckets at both", async () => {
  // webhook-config/base is the chart rendered (test/deploy/kustomize-base.test.ts holds them together).
  const timeouts = new Set<number>();
  for (const file of ['validating-webhook-configuration.yaml', 'mutating-webhook-configuration.yaml']) {
    const doc = parse(readFileSync(join(root, 'webhook-config', 'base', file), 'utf8')) as {
      webhooks: { timeoutSeconds: number }[];
    };
    for (const w of doc.webhooks) timeouts.add(w.timeoutSeconds);
  }
  assert.equal(timeouts.size, 1, `one timeoutSeconds for every webhook: ${[...timeouts].join(', ')}`);
  const timeout = [...timeouts][0] ?? 0;
  const rule = alerts().find((a) => a.alert === 'HookkeeperWebhookLatencyNearTimeout');
  const threshold = Number(/> (\d+(?:\.\d+)?)$/.exec(rule?.expr.trim() ?? '')?.[1]);
  assert.equal(threshold, timeout * 0.8);
  assert.match(rule?.annotations?.['description'] ?? '', new RegExp(`\\b${timeout} s timeout\\b`));
  const metrics = createMetrics();
  metrics.duration.observe({ webhook: 'validate' }, 0.001);
  const text = await metrics.registry.metrics();
  for (const le of [threshold, timeout])
    assert.match(text, new RegExp(`hookkeeper_admission_duration_seconds_bucket\\{le="${le}",webhook="validate"\\}`));
});

test('promtool check rules passes on the shipped rules', needsPromtool, async (t) => {
  const dir = await ruleFileDir(t, shippedRule().spec);
  const res = runPromtool(requirePromtool(promtool), ['check', 'rules', '--lint-fatal', 'rules.yaml'], dir);
  assert.equal(res.status, 0, res.stdout + res.stderr);
  assert.match(res.stdout, new RegExp(`SUCCESS: ${alerts().length} rules found`));
});

test('promtool test rules passes, with every alert tested firing and not firing', needsPromtool, async (t) => {
  const dir = await ruleFileDir(t, shippedRule().spec);
  await cp(PROMTOOL_TESTS, join(dir, 'tests.yaml'));
  const res = runPromtool(requirePromtool(promtool), ['test', 'rules', 'tests.yaml'], dir);
  assert.equal(res.status, 0, res.stdout + res.stderr);
  const cases = (
    parse(readFileSync(PROMTOOL_TESTS, 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
    }
  ).tests.flatMap((c) => c.alert_rule_test ?? []);
  for (const name of new Set(alerts().map((a) => a.alert))) {
    const mine = cases.filter((c) => c.alertname === name);
    assert.ok(
      mine.some((c) => c.exp_alerts.length > 0),
      `${name}: no case where it fires`,
    );
    assert.ok(
      mine.some((c) => c.exp_alerts.length === 0),
      `${name}: no case where it does not fire`,
    );
  }
});

test(
  'every expression of the dashboard parses (promtool check rules, one recording rule each)',
  needsPromtool,
  async (t) => {
    const expressions = dashboardExpressions();
    assert.ok(expressions.length >= 10, `${expressions.length} expressions`);
    const spec = {
      groups: [
        {
          name: 'dashboard',
          rules: expressions.map((d, i) => ({ record: `hookkeeper:dashboard_${i}`, expr: d.expr })),
        },
      ],
    };
    const dir = await ruleFileDir(t, spec);
    const res = runPromtool(requirePromtool(promtool), ['check', 'rules', 'rules.yaml'], dir);
    assert.equal(res.status, 0, res.stdout + res.stderr);
  },
);

test(
  'the chart ships neither by default, and with them enabled exactly the shipped files',
  { skip: helmSkip(helm) },
  () => {
    const h = requireHelm(helm);
    const enabled = ['--set', 'monitoring.prometheusRule.enabled=true', '--set', 'monitoring.dashboard.enabled=true'];
    const lint = runHelm(h, ['lint', '--strict', chartDir(root), ...enabled]);
    assert.equal(lint.status, 0, lint.stdout + lint.stderr);
    const monitoring = (docs: Doc[]) =>
      docs.filter((d) => d.kind === 'PrometheusRule' || d.metadata.name.endsWith('-grafana-dashboard'));
    assert.deepEqual(monitoring(helmTemplate<Doc>(h, chartDir(root))), []);
    const docs = monitoring(
      helmTemplate<Doc>(h, chartDir(root), {
        release: 'hk',
        namespace: 'ops',
        args: [
          '--set',
          'monitoring.prometheusRule.enabled=true',
          '--set',
          'monitoring.prometheusRule.labels.release=kube-prometheus-stack',
          '--set',
          'monitoring.dashboard.enabled=true',
          '--set',
          'monitoring.dashboard.namespace=grafana',
          '--set',
          'monitoring.dashboard.annotations.grafana_folder=hookkeeper',
        ],
      }),
    );
    const rule = docs.find((d) => d.kind === 'PrometheusRule');
    assert.equal(rule?.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(rule.metadata.name, 'hk-hookkeeper');
    assert.equal(rule.metadata.namespace, 'ops');
    assert.equal(rule.metadata.labels?.['release'], 'kube-prometheus-stack');
    assert.deepEqual(rule.spec, shippedRule().spec);
    const dashboard = docs.find((d) => d.kind === 'ConfigMap');
    assert.equal(dashboard?.metadata.name, 'hk-hookkeeper-grafana-dashboard');
    assert.equal(dashboard.metadata.namespace, 'grafana');
    assert.equal(dashboard.metadata.labels?.['grafana_dashboard'], '1');
    assert.equal(dashboard.metadata.annotations?.['grafana_folder'], 'hookkeeper');
    assert.equal(dashboard.data?.['hookkeeper.json'], shippedDashboardText());
  },
);

test(
  'the kustomize component ships the same rules and dashboard',
  { skip: kustomize ? false : NO_KUSTOMIZE },
  async (t) => {
    const copy = await mkdtemp(join(tmpdir(), 'hookkeeper-monitoring-'));
    t.after(() => rm(copy, { recursive: true, force: true }));
    await cp(join(root, MONITORING_DIR), join(copy, 'components', 'monitoring'), { recursive: true });
    await writeFile(
      join(copy, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncomponents:\n  - components/monitoring\n',
    );
    const docs = kustomizeBuild<Doc>(kustomize ?? [], copy);
    assert.deepEqual(docs.map((d) => `${d.kind} ${d.metadata.namespace}/${d.metadata.name}`).sort(), [
      'ConfigMap hookkeeper/hookkeeper-grafana-dashboard',
      'PrometheusRule hookkeeper/hookkeeper',
    ]);
    const rule = docs.find((d) => d.kind === 'PrometheusRule') as unknown as PrometheusRule;
    assert.deepEqual(rule.spec, shippedRule().spec);
    const dashboard = docs.find((d) => d.kind === 'ConfigMap');
    assert.equal(dashboard?.metadata.labels?.['grafana_dashboard'], '1');
    assert.equal(dashboard.data?.['hookkeeper.json'], shippedDashboardText());
  },
);
