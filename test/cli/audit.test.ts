// `hookkeeper audit` against a fake API server through a kubeconfig: every output format and every exit code.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import YAML from 'yaml';
import type { AuditReport } from '../../src/transports/audit/report.js';
import { duration } from '../../src/transports/cli/flags.js';
import { AppError } from '../../src/errors.js';
import { useFakeApiServer } from '../audit/fake-apiserver.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';

const hoursAgo = (h: number): string => new Date(Date.now() - h * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');

describe('hookkeeper audit', () => {
  const fake = useFakeApiServer('hookkeeper-audit-');
  beforeEach(() => {
    fake.api.objects.clear();
    fake.api.serviceAccounts.clear();
    fake.api.serviceAccounts.add('openshift-etcd-operator/etcd-operator');
    fake.api.objects.set('machine.openshift.io/v1beta1/machines', [
      machine({ name: 'master-0', preDrain: [ETCD], deletionTimestamp: hoursAgo(2) }),
      machine({ name: 'master-1', preDrain: [ETCD] }),
      machine({ name: 'worker-0', namespace: 'team-a', role: 'worker' }),
    ]);
    fake.api.objects.set('machine.openshift.io/v1beta1/machinesets', []);
  });

  test('a stuck deletion -> exit 1; in a pipe, one line per finding and its fix, then the summary', async () => {
    const r = await cli(['audit', '--kubeconfig', fake.kubeconfig]);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(
      lines[0] ?? '',
      /^fail stuck-deletion Machine\.machine\.openshift\.io openshift-machine-api\/master-0 spec\.lifecycleHooks\.preDrain\[0\]: Machine openshift-machine-api\/master-0 has been deleting for 2h /,
    );
    assert.match(lines[1] ?? '', /^ {2}fix: the deletion waits for "clusteroperator\/etcd"/);
    assert.match(lines[2] ?? '', /^ {2}next: the owner "clusteroperator\/etcd"/);
    assert.equal(
      lines[3],
      '  explain: hookkeeper explain machines.machine.openshift.io/master-0 -n openshift-machine-api',
    );
    assert.equal(
      lines[4],
      'audited 3 objects (machines.machine.openshift.io: 3, machinesets.machine.openshift.io: 0, controlplanemachinesets.machine.openshift.io: not installed, machines.cluster.x-k8s.io: not installed, machinesets.cluster.x-k8s.io: not installed, machinedeployments.cluster.x-k8s.io: not installed, clusters.cluster.x-k8s.io: not installed)',
    );
    assert.equal(lines[5], '1 fail, 0 warn, 2 passed; 1 stuck deletion, 0 orphaned hooks');
    assert.equal(r.stderr, '', 'no progress indicator when stderr is not a terminal');
    assert.ok(fake.api.requests.includes('/apis/machine.openshift.io/v1beta1/machines?limit=500'));
  });

  test('on a terminal: a table on stdout, a progress indicator on stderr', async () => {
    const r = await cli(['audit', '--kubeconfig', fake.kubeconfig], { tty: true });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^RESULT {2}RULE {12}KIND {26}NAMESPACE {14}NAME {6}PATH {29}MESSAGE\nfail {4}stuck-deletion {2}Machine\.machine\.openshift\.io {2}openshift-machine-api {2}master-0/,
    );
    assert.ok(
      r.stderr.includes('\r\u001b[Kauditing machines.machine.openshift.io: 3 objects (3 in all)'),
      JSON.stringify(r.stderr),
    );
    assert.ok(r.stderr.endsWith('\r\u001b[K'), 'the progress line is cleared at the end');
  });

  test('--stuck-after longer than the deletion -> clean, exit 0; -n limits the audit to one namespace', async () => {
    const clean = await cli(['audit', '--kubeconfig', fake.kubeconfig, '--stuck-after', '3h']);
    assert.equal(clean.code, 0, clean.stdout);
    assert.match(clean.stdout, /^audited 3 objects/);
    fake.api.requests.length = 0;
    const one = await cli(['audit', '--kubeconfig', fake.kubeconfig, '-n', 'team-a', '--output', 'json']);
    assert.equal(one.code, 0);
    assert.equal((JSON.parse(one.stdout) as AuditReport).summary.objects, 1);
    // The hook carriers, and Roles and RoleBindings, of team-a only; ClusterRoles and their bindings are cluster-wide,
    // and so are the API server's metrics (its static admission manifests) and the CRDs whose schemas keep hooks.
    assert.ok(
      fake.api.requests.every(
        (p) =>
          p.includes('/namespaces/team-a/') ||
          /\/rbac.authorization.k8s.io\/v1\/clusterrole(binding)?s\?/.test(p) ||
          p === '/metrics' ||
          p.startsWith('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/'),
      ),
      fake.api.requests.join('\n'),
    );
  });

  test('-A/--all-namespaces says the default out loud: every namespace; with -n it is a usage error', async () => {
    const all = await cli(['audit', '--kubeconfig', fake.kubeconfig, '-A', '-o', 'json']);
    assert.equal(all.code, 1, all.stderr);
    assert.equal((JSON.parse(all.stdout) as AuditReport).summary.objects, 3);
    const long = await cli(['audit', '--kubeconfig', fake.kubeconfig, '--all-namespaces', '--output', 'json']);
    assert.equal((JSON.parse(long.stdout) as AuditReport).summary.objects, 3);
    const both = await cli(['audit', '--kubeconfig', fake.kubeconfig, '-A', '-n', 'team-a']);
    assert.equal(both.code, 2);
    assert.equal(
      both.stderr,
      'hookkeeper audit: -A/--all-namespaces: cannot go with -n/--namespace; give one of them (all namespaces is the default)\n',
    );
  });

  test("--output json: the documented AuditReport, with orphaned owners when the owner's service account is gone", async () => {
    fake.api.serviceAccounts.clear();
    const r = await cli(['audit', '--kubeconfig', fake.kubeconfig, '--output', 'json']);
    assert.equal(r.code, 1);
    const report = JSON.parse(r.stdout) as AuditReport;
    assert.equal(report.kind, 'AuditReport');
    assert.deepEqual(report.summary, { objects: 3, passed: 1, fail: 3, warn: 0, stuckDeletions: 1, orphanedHooks: 2 });
    assert.deepEqual(
      report.findings.map((f) => [f.rule, f.object.name]),
      [
        ['stuck-deletion', 'master-0'],
        ['orphaned-owner', 'master-0'],
        ['orphaned-owner', 'master-1'],
      ],
    );
    assert.equal(report.stuckAfterSeconds, 1800);
    assert.ok(fake.api.requests.includes('/api/v1/namespaces/openshift-etcd-operator/serviceaccounts/etcd-operator'));
    assert.equal(fake.api.requests.filter((p) => p.includes('/serviceaccounts/')).length, 1, 'looked up once per run');
  });

  test('--output policyreport: PolicyReports per namespace as a YAML stream, passes included', async () => {
    const r = await cli(['audit', '--kubeconfig', fake.kubeconfig, '--output', 'policyreport']);
    assert.equal(r.code, 1);
    const docs = YAML.parseAllDocuments(r.stdout).map((d) => d.toJS() as Record<string, unknown>);
    assert.deepEqual(
      docs.map((d) => [d['apiVersion'], d['kind'], (d['metadata'] as { namespace: string }).namespace, d['summary']]),
      [
        [
          'wgpolicyk8s.io/v1alpha2',
          'PolicyReport',
          'openshift-machine-api',
          { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 },
        ],
        ['wgpolicyk8s.io/v1alpha2', 'PolicyReport', 'team-a', { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 }],
      ],
    );
    const results = docs[0]?.['results'] as Array<Record<string, unknown>>;
    assert.deepEqual(
      results.map((x) => [x['policy'], x['rule'], x['result'], x['source'], x['scored']]),
      [
        ['hookkeeper', 'stuck-deletion', 'fail', 'hookkeeper', true],
        ['hookkeeper', undefined, 'pass', 'hookkeeper', true],
      ],
    );
  });

  test('--output openreports: openreports.io Reports per namespace as a YAML stream, passes included', async () => {
    const r = await cli(['audit', '--kubeconfig', fake.kubeconfig, '--output', 'openreports']);
    assert.equal(r.code, 1, r.stderr);
    const docs = YAML.parseAllDocuments(r.stdout).map((d) => d.toJS() as Record<string, unknown>);
    assert.deepEqual(
      docs.map((d) => [
        d['apiVersion'],
        d['kind'],
        (d['metadata'] as { namespace: string }).namespace,
        d['source'],
        d['summary'],
      ]),
      [
        [
          'openreports.io/v1alpha1',
          'Report',
          'openshift-machine-api',
          'hookkeeper',
          { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 },
        ],
        ['openreports.io/v1alpha1', 'Report', 'team-a', 'hookkeeper', { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 }],
      ],
    );
    const results = docs[0]?.['results'] as Array<Record<string, unknown>>;
    assert.deepEqual(
      results.map((x) => [x['policy'], x['rule'], x['result'], x['scored']]),
      [
        ['hookkeeper', 'stuck-deletion', 'fail', true],
        ['hookkeeper', undefined, 'pass', true],
      ],
    );
  });

  test('--help names every output format and the report APIs', async () => {
    const r = await cli(['audit', '--help']);
    assert.equal(r.code, 0, r.stderr);
    // Commander wraps the option's text to the terminal's width.
    const help = r.stdout.replace(/\s+/g, ' ');
    assert.ok(
      help.includes(
        '--output <format> output format: text, json, yaml, policyreport (wgpolicyk8s.io/v1alpha2 PolicyReport and ClusterPolicyReport), openreports (openreports.io/v1alpha1 Report and ClusterReport); reports as a YAML stream (default: "text")',
      ),
      r.stdout,
    );
  });

  test('cluster errors -> exit 3 with a clear message: unauthorized, forbidden, unreachable, no CRD installed', async () => {
    fake.api.refuse = { code: 401, message: 'Unauthorized' };
    const unauthorized = await cli(['audit', '--kubeconfig', fake.kubeconfig]);
    assert.equal(unauthorized.code, 3);
    assert.match(
      unauthorized.stderr,
      /^hookkeeper audit: cannot list machines\.machine\.openshift\.io: unauthorized \(401\)/,
    );
    fake.api.refuse = {
      code: 403,
      message: 'machines.machine.openshift.io is forbidden: User "auditor" cannot list resource "machines"',
    };
    const forbidden = await cli(['audit', '--kubeconfig', fake.kubeconfig]);
    assert.equal(forbidden.code, 3);
    assert.match(
      forbidden.stderr,
      /forbidden \(403\): machines\.machine\.openshift\.io is forbidden: User "auditor" cannot list/,
    );
    delete fake.api.refuse;
    fake.api.objects.clear();
    const none = await cli(['audit', '--kubeconfig', fake.kubeconfig]);
    assert.equal(none.code, 3);
    assert.match(
      none.stderr,
      /^hookkeeper audit: CRD not installed: this cluster serves none of machines\.machine\.openshift\.io\/v1beta1/,
    );
    const unreachable = join(fake.dir, 'unreachable');
    await writeFile(unreachable, (await readFile(fake.kubeconfig, 'utf8')).replace(fake.api.url, 'http://127.0.0.1:1'));
    const down = await cli(['audit', '--kubeconfig', unreachable]);
    assert.equal(down.code, 3);
    assert.match(down.stderr, /cannot reach the API server at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/);
  });

  test('no kubeconfig anywhere: one line saying where it looked, exit 2; never a made-up localhost:8080', async () => {
    const home = join(fake.dir, 'empty-home');
    await mkdir(home, { recursive: true });
    for (const args of [['audit'], ['audit', '--context', 'prod']]) {
      const r = await cli(args, { env: { HOME: home } });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      assert.match(
        r.stderr,
        /^hookkeeper audit: (--context prod: )?no kubeconfig: no --kubeconfig, KUBECONFIG is not set, no .*empty-home\/\.kube\/config, and not in a pod; give --kubeconfig FILE or set KUBECONFIG\n$/,
      );
      assert.doesNotMatch(r.stderr, /localhost:8080|loaded-context/);
    }
  });

  test("--context that does not exist lists the kubeconfig's contexts", async () => {
    const home = join(fake.dir, 'home');
    await mkdir(join(home, '.kube'), { recursive: true });
    await writeFile(join(home, '.kube', 'config'), await readFile(fake.kubeconfig));
    for (const env of [{ HOME: home }, { KUBECONFIG: fake.kubeconfig }] as Array<Record<string, string>>) {
      const r = await cli(['audit', '--context', 'prod'], { env });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr, 'hookkeeper audit: --context prod: no such context (have: fake, elsewhere)\n');
    }
  });

  test("a plain-http server without insecure-skip-tls-verify: said in hookkeeper's words, not the client library's", async () => {
    const plain = join(fake.dir, 'plain-http');
    await writeFile(
      plain,
      (await readFile(fake.kubeconfig, 'utf8'))
        .replace(fake.api.url, 'http://127.0.0.1:1')
        .replace(', insecure-skip-tls-verify: true', ''),
    );
    const r = await cli(['audit', '--kubeconfig', plain]);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(
      r.stderr,
      'hookkeeper audit: cannot list machines.machine.openshift.io: cannot reach the API server at http://127.0.0.1:1: the kubeconfig names a plain http:// server; hookkeeper connects over https (or set insecure-skip-tls-verify: true on that cluster)\n',
    );
  });

  test('usage errors -> exit 2', async () => {
    for (const args of [
      ['audit', '--kubeconfig', fake.kubeconfig, '--stuck-after', '30'],
      ['audit', '--kubeconfig', fake.kubeconfig, '--output', 'xml'],
      ['audit', '--kubeconfig', fake.kubeconfig, '--context', 'nope'],
      ['audit', '--kubeconfig', join(fake.dir, 'missing')],
      ['audit', '--kubeconfig', fake.kubeconfig, '--config', join(fake.dir, 'no-policy.yaml')],
    ]) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^hookkeeper audit: /, args.join(' '));
    }
  });
});

describe('durations (--stuck-after, --audit-interval)', () => {
  test('Go-style durations in milliseconds', () => {
    assert.deepEqual(
      ['90s', '30m', '1h', '1h30m', '500ms', '1.5h', '0s'].map((v) => duration('--x', v)),
      [90_000, 1_800_000, 3_600_000, 5_400_000, 500, 5_400_000, 0],
    );
  });

  test('anything else is a usage error naming the flag', () => {
    for (const bad of ['', '30', 'm', '1d', '1h 30m', '-5m', '5 m', '1h30']) {
      assert.throws(
        () => duration('--stuck-after', bad),
        (e: unknown) =>
          e instanceof AppError &&
          e.code === 'USAGE' &&
          e.message.startsWith('--stuck-after: ') &&
          e.message.includes('is not a duration; give one such as 90s'),
        bad,
      );
    }
  });

  test('serve refuses a malformed or zero --audit-interval before starting', async () => {
    for (const value of ['soon', '0s']) {
      const r = await cli(['serve', '--audit-interval', value]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--audit-interval/);
    }
  });
});
