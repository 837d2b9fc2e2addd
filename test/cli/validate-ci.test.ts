// `hookkeeper validate` on a repository as CI runs it: what it leaves out (--exclude, Helm charts), what it cannot
// read (reported beside every other result), kubectl's -f and -o, --fail-on, and the machine formats on an error.
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import type { KubeObject } from '../../src/core/types.js';
import type { ValidateReport } from '../../src/transports/validate/report.js';
import { DUPLICATE_KEY } from '../../src/infrastructure/manifests/documents.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';
import { gitRepo } from '../validate/git-repo.js';
import { parseXml } from '../validate/xml.js';

const yaml = (...objects: KubeObject[]): string => objects.map((o) => YAML.stringify(o)).join('---\n');
const TEMPLATE =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {{- include "x" . }}\n';
const badHook = yaml(
  machine({ name: 'worker-9', role: 'worker', preDrain: [{ name: 'bad name', owner: 'ops-team' }] }),
);

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookkeeper-validate-ci-'));
  const files: Record<string, string> = {
    'repo/manifests/cp.yaml': yaml(machine({ name: 'master-0', preDrain: [ETCD] })),
    'repo/charts/app/Chart.yaml': 'apiVersion: v2\nname: app\nversion: 0.1.0\n',
    'repo/charts/app/templates/cm.yaml': TEMPLATE,
    'repo/kustomize/kustomization.yaml': 'resources:\n  - ../manifests\n',
    'repo/values-prod.yaml': 'replicas: 3\n',
    'warn-policy.yaml': 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement:\n  hook-naming: warn\n',
    'bad-hook.yaml': badHook,
    'good.yaml': yaml(machine({ name: 'master-1', preDrain: [ETCD] })),
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  await mkdir(join(dir, 'empty'));
});
after(async () => rm(dir, { recursive: true, force: true }));

describe('validate: what a repository holds besides manifests', () => {
  test('a directory holding Chart.yaml is not read, with a note to pipe helm template instead', async () => {
    const r = await cli(['validate', 'repo', '--exclude', 'kustomization.yaml', '--exclude', 'values-*.yaml'], {
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^note: repo\/charts\/app: a Helm chart \(Chart\.yaml\), not read: its templates are not manifests; judge it rendered \(--render "helm template repo\/charts\/app", at both revisions with --old-ref\)$/m,
    );
    assert.match(r.stdout, /^1 object: 1 allowed, 0 denied, 0 warnings$/m);
  });

  test('--exclude GLOB (repeatable): relative to the directory given; a name without "/" at any depth', async () => {
    const excluded = await cli(['validate', 'repo', '--exclude', 'kustomize/**', '--exclude', 'values-*.yaml'], {
      cwd: dir,
    });
    assert.equal(excluded.code, 0, excluded.stdout + excluded.stderr);
    assert.doesNotMatch(excluded.stdout, /skipped|matched nothing/);
    // A pattern is matched inside the directory given, not against the path from the working directory: one that
    // leaves nothing out says so.
    const wrongBase = await cli(['validate', 'repo', '--exclude', 'repo/kustomize/**', '--exclude', 'values-*.yaml'], {
      cwd: dir,
    });
    assert.equal(wrongBase.code, 0, wrongBase.stdout + wrongBase.stderr);
    assert.match(
      wrongBase.stdout,
      /^note: --exclude "repo\/kustomize\/\*\*" matched nothing in the directories given$/m,
    );
    assert.doesNotMatch(wrongBase.stdout, /--exclude "values-\*\.yaml" matched nothing/);
  });

  test("a walked file of another tool's (package.json, a kustomization, values) is skipped with one counted note", async () => {
    const other = join(dir, 'other');
    const files: Record<string, string> = {
      'package.json': JSON.stringify({ name: 'gitops', private: true, scripts: { test: 'true' } }),
      'renovate.json': JSON.stringify({ extends: ['config:recommended'] }),
      '.pre-commit-config.yaml': 'repos: []\n',
      'kustomization.yaml': 'resources:\n  - manifests/cp.yaml\n',
      'overlay/kustomization.yaml':
        'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../manifests\n',
      'values.yaml': 'replicas: 3\n',
      'list.yaml': '- a\n- b\n',
      'manifests/cp.yaml': yaml(machine({ name: 'master-0', preDrain: [ETCD] })),
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(other, path, '..'), { recursive: true });
      await writeFile(join(other, path), text);
    }
    const r = await cli(['validate', '.'], { cwd: other });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^1 object: 1 allowed, 0 denied, 0 warnings$/m);
    assert.match(
      r.stdout,
      /^note: 6 files hold no Kubernetes object and were skipped \(another tool's YAML or JSON, or kustomize's configuration\): kustomization\.yaml, list\.yaml, overlay\/kustomization\.yaml, package\.json, renovate\.json and 1 more$/m,
    );

    // Something that tries to be an object is judged, broken or not: a manifest with a typo in "kind" stays an error,
    // and so does a file named on the command line.
    await writeFile(join(other, 'broken.yaml'), 'apiVersion: machine.openshift.io/v1beta1\nKind: Machine\n');
    const broken = await cli(['validate', '.'], { cwd: other });
    assert.equal(broken.code, 2, broken.stdout + broken.stderr);
    assert.match(broken.stderr, /broken\.yaml:1: document 1 is not a Kubernetes object: kind missing/);
    const named = await cli(['validate', 'values.yaml'], { cwd: other });
    assert.equal(named.code, 2, named.stdout + named.stderr);
    assert.match(named.stderr, /values\.yaml:1: document 1 is not a Kubernetes object: apiVersion and kind missing/);
  });

  test('a symbolic link out of the directory given is not followed, and a FIFO is never opened', async () => {
    const outside = join(dir, 'outside');
    const inside = join(dir, 'checkout');
    await mkdir(outside, { recursive: true });
    await mkdir(join(inside, 'manifests'), { recursive: true });
    await writeFile(join(outside, 'secret.yaml'), yaml(machine({ name: 'outside-0', preDrain: [ETCD] })));
    await writeFile(join(inside, 'manifests', 'cp.yaml'), yaml(machine({ name: 'master-0', preDrain: [ETCD] })));
    await symlink('../../outside/secret.yaml', join(inside, 'manifests', 'link.yaml'));
    await symlink('../outside', join(inside, 'linkdir'));
    // A link that stays inside is followed as before.
    await symlink('manifests/cp.yaml', join(inside, 'alias.yaml'));
    const linked = await cli(['validate', 'checkout', '-o', 'json'], { cwd: dir });
    const report = JSON.parse(linked.stdout) as ValidateReport;
    assert.deepEqual(report.results.map((r) => r.file).sort(), ['checkout/alias.yaml', 'checkout/manifests/cp.yaml']);
    assert.deepEqual(report.notes.filter((n) => n.includes('leads out')).sort(), [
      'checkout/linkdir: a symbolic link that leads out of checkout, not read',
      'checkout/manifests/link.yaml: a symbolic link that leads out of checkout, not read',
    ]);

    const fifo = join(inside, 'manifests', 'pipe.yaml');
    const made = spawnSync('mkfifo', [fifo]);
    assert.equal(made.status, 0, String(made.stderr));
    const r = await cli(['validate', 'checkout'], { cwd: dir });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /^ {2}checkout\/manifests\/pipe\.yaml: cannot read: not a regular file \(not opened\)$/m);
    assert.match(r.stdout, /^2 objects: 2 allowed/m);
  });

  test('-o github: nothing a pull request names can forge a workflow command, on either stream', async () => {
    const hostile = join(dir, 'hostile');
    await mkdir(hostile, { recursive: true });
    // A file name that, printed raw, ends a line and starts a workflow command of its own.
    await writeFile(join(hostile, 'x\n::add-mask::leak\n  ::error file=y::forged ##[error]old.yaml'), 'kind: [\n');
    await writeFile(join(hostile, 'cp.yaml'), yaml(machine({ name: 'master-0', preDrain: [ETCD] })));
    const r = await cli(['validate', 'hostile', '-o', 'github'], { cwd: dir });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    const ours = /^::(error|warning|notice) (file=[^,:]*,)?(line=\d+,)?title=[^:]*::/;
    for (const [stream, text] of [
      ['stdout', r.stdout],
      ['stderr', r.stderr],
    ] as const)
      for (const line of text.split('\n')) {
        // A line the runner takes for a command is one of ours, whole (the legacy `##[` form only outside them).
        if (line.trimStart().startsWith('::')) assert.match(line, ours, `${stream}: ${JSON.stringify(line)}`);
        else assert.doesNotMatch(line, /##\[/, `${stream}: ${JSON.stringify(line)}`);
      }
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^hookkeeper validate: cannot validate an input: .*add-mask/);
  });

  test('one mistake that makes hundreds of parse errors shows the first ones and counts the rest, with a hint', async () => {
    // Manifests joined with `cat` and no "---": one mapping whose keys all repeat.
    const joined = Array.from(
      { length: 60 },
      (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\ndata:\n  a: "1"\n`,
    ).join('');
    await writeFile(join(dir, 'joined.yaml'), joined);
    const r = await cli(['validate', 'joined.yaml'], { cwd: dir });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    const shown = r.stderr.split('\n').filter((l) => l.startsWith('  joined.yaml'));
    assert.equal(shown.length, 11, r.stderr);
    assert.match(
      shown[0] ?? '',
      /^ {2}joined\.yaml:7: a key given twice in one mapping: kubectl sends the later value/,
    );
    assert.match(
      shown[10] ?? '',
      /^ {2}joined\.yaml: and \d+ more YAML errors in this file: repeated keys all through, as in manifests joined without a "---" line$/,
    );
  });

  test('a Helm template given as a manifest is an input error that says to pipe helm template', async () => {
    await writeFile(join(dir, 'template.yaml'), TEMPLATE);
    const r = await cli(['validate', 'template.yaml'], { cwd: dir });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /^ {2}template\.yaml:\d+: .*\(this looks like a Helm template: judge the rendered chart, --render "helm template CHART", at both revisions with --old-ref\)$/m,
    );
    // A template action inside a string is data (an alert's annotation), not a template: no hint on other errors.
    await writeFile(join(dir, 'quoted.yaml'), 'a: "{{ $value }}"\na: 2\n');
    const quoted = await cli(['validate', 'quoted.yaml'], { cwd: dir });
    assert.equal(quoted.code, 2, quoted.stdout + quoted.stderr);
    assert.doesNotMatch(quoted.stderr, /Helm template/);
  });

  test('a symbolic link loop is named, and reported beside every other result (exit 2)', async () => {
    const loopDir = join(dir, 'loops');
    await mkdir(join(loopDir, 'sub'), { recursive: true });
    await writeFile(join(loopDir, 'good.yaml'), yaml(machine({ name: 'master-2', preDrain: [ETCD] })));
    await writeFile(join(loopDir, 'bad.yaml'), badHook);
    await symlink('self.yaml', join(loopDir, 'self.yaml'));
    await symlink('..', join(loopDir, 'sub', 'back'));
    const r = await cli(['validate', 'loops'], { cwd: dir });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^loops\/bad\.yaml:\d+ \(document 1\): Machine\.machine\.openshift\.io openshift-machine-api\/worker-9 \[CREATE\]: DENIED$/m,
    );
    assert.match(r.stdout, /^2 objects: 1 allowed, 1 denied, 0 warnings; 2 input errors$/m);
    assert.match(r.stderr, /^ {2}loops\/self\.yaml: cannot read: a symbolic link loop \(ELOOP\)$/m);
    assert.match(r.stderr, /^ {2}loops\/sub\/back: cannot read: a symbolic link loop \(it leads back to loops\)$/m);
  });

  test(
    'an unreadable file (EACCES) is reported beside every other result (exit 2)',
    { skip: process.getuid?.() === 0 ? 'root reads every file' : false },
    async () => {
      const locked = join(dir, 'locked');
      await mkdir(locked);
      await writeFile(join(locked, 'secret.yaml'), badHook);
      await writeFile(join(locked, 'good.yaml'), yaml(machine({ name: 'master-3', preDrain: [ETCD] })));
      await chmod(join(locked, 'secret.yaml'), 0o000);
      const r = await cli(['validate', 'locked'], { cwd: dir });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stdout, /^1 object: 1 allowed, 0 denied, 0 warnings; 1 input error$/m);
      assert.match(r.stderr, /^ {2}locked\/secret\.yaml: cannot read: EACCES$/m);
    },
  );
});

describe("validate: kubectl's -f and -o", () => {
  test('-f FILE (repeatable) beside positional paths, and -f - for stdin', async () => {
    const r = await cli(['validate', '-f', 'good.yaml', 'bad-hook.yaml', '-f', '-', '-o', 'json'], {
      cwd: dir,
      stdin: yaml(machine({ name: 'master-4', preDrain: [ETCD] })),
    });
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout) as ValidateReport;
    assert.deepEqual(report.results.map((x) => [x.file, x.object.name]).sort(), [
      ['<stdin>', 'master-4'],
      ['bad-hook.yaml', 'worker-9'],
      ['good.yaml', 'master-1'],
    ]);
    const long = await cli(['validate', '--filename', 'good.yaml', '--output', 'json'], { cwd: dir });
    assert.equal(long.code, 0, long.stderr);
    assert.equal((JSON.parse(long.stdout) as ValidateReport).summary.objects, 1);
  });

  test('-o is --output', async () => {
    const r = await cli(['validate', '-o', 'no-such-format', 'good.yaml'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /-o\/--output: "no-such-format" is not an output format; give one of text, json, yaml, junit, sarif, github/,
    );
  });
});

describe('validate --fail-on', () => {
  test('warn: a warning fails the run (exit 1); by default (deny) it does not', async () => {
    const args = ['validate', '--config', 'warn-policy.yaml', 'bad-hook.yaml'];
    assert.equal((await cli(args, { cwd: dir })).code, 0);
    assert.equal((await cli([...args, '--fail-on', 'deny'], { cwd: dir })).code, 0);
    const failing = await cli([...args, '--fail-on', 'warn'], { cwd: dir });
    assert.equal(failing.code, 1, failing.stderr);
    // The summary says which warnings failed the run, by rule, so the log's last line is enough to act on.
    assert.match(failing.stdout, /0 denied, 1 warning; failed by --fail-on warn: hook-naming \(1\)\n$/);
    // The warning says how to fix it, as a denial does.
    assert.match(
      failing.stdout,
      /\n {2}warn hook-naming spec\.lifecycleHooks\.preDrain\[0\]\.name.*\n.*\n {4}fix: give hook/,
    );
    // Without --fail-on warn, a warning fails nothing and the summary says no more.
    assert.doesNotMatch((await cli(args, { cwd: dir })).stdout, /failed by/);
    const bad = await cli([...args, '--fail-on', 'error'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'hookkeeper validate: --fail-on: "error" is not a severity; give deny or warn\n');
  });
});

describe('validate: on an input error, the machine formats still say what failed', () => {
  test('junit: an error testcase naming the cause (no objects)', async () => {
    const r = await cli(['validate', '-o', 'junit', 'empty'], { cwd: dir });
    assert.equal(r.code, 2);
    parseXml(r.stdout);
    assert.match(r.stdout, /<testsuites name="hookkeeper validate" tests="1" failures="0" errors="1" skipped="0">/);
    assert.match(r.stdout, /<error type="input" message="no objects to validate in empty: /);
    assert.match(r.stderr, /^hookkeeper validate: no objects to validate in empty: /);
  });

  test('sarif, json and github: an unreadable --old file, with its file and line', async () => {
    await writeFile(join(dir, 'old-broken.yaml'), 'a: 1\na: 2\n');
    for (const output of ['sarif', 'github']) {
      const r = await cli(['validate', '-o', output, '--old', 'old-broken.yaml', 'good.yaml'], { cwd: dir });
      assert.equal(r.code, 2, `${output}: ${r.stderr}`);
      assert.match(r.stdout, /old-broken\.yaml:2: a key given twice in one mapping/, output);
    }
    const json = await cli(['validate', '-o', 'json', '--old', 'old-broken.yaml', 'good.yaml'], { cwd: dir });
    assert.equal(json.code, 2);
    assert.deepEqual((JSON.parse(json.stdout) as ValidateReport).problems, [
      {
        message:
          'cannot validate: the old manifests have a problem (unreadable, not Kubernetes objects, or an object defined twice)',
      },
      { file: 'old-broken.yaml', line: 2, message: DUPLICATE_KEY },
    ]);
    const sarif = await cli(['validate', '-o', 'sarif', '--old', 'old-broken.yaml', 'good.yaml'], { cwd: dir });
    const log = JSON.parse(sarif.stdout) as { runs: Array<{ invocations: Array<{ executionSuccessful: boolean }> }> };
    assert.equal(log.runs[0]?.invocations[0]?.executionSuccessful, false);
  });

  test('text: stdout stays empty, stderr says it', async () => {
    const r = await cli(['validate', 'empty'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no objects to validate in empty/);
  });
});

describe('validate --old-ref: charts and --exclude at the revision too', () => {
  test('a chart inside the paths given, and an excluded file, are left out at the revision as in the working tree', async () => {
    const repo = await gitRepo({
      'manifests/cp.yaml': yaml(machine({ name: 'master-0', preDrain: [ETCD] })),
      'charts/app/Chart.yaml': 'apiVersion: v2\nname: app\nversion: 0.1.0\n',
      'charts/app/templates/cm.yaml': TEMPLATE,
      'kustomization.yaml': 'resources:\n  - manifests\n',
    });
    try {
      const r = await cli(['validate', '--old-ref', 'main', '--exclude', 'kustomization.yaml', '.'], {
        cwd: repo.dir,
      });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /^note: charts\/app: a Helm chart \(Chart\.yaml\), not read/m);
      // Without --exclude, the same file is an input problem on both sides.
      const without = await cli(['validate', '--old-ref', 'main', '.'], { cwd: repo.dir });
      assert.equal(without.code, 2, without.stdout + without.stderr);
    } finally {
      await rm(repo.dir, { recursive: true, force: true });
    }
  });
});
