// `hookkeeper validate` finding each object's old version by identity (--old-ref, --old), whatever file or stream
// holds it; empty inputs; objects without a namespace (-n).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import type { KubeObject } from '../../src/core/types.js';
import type { ValidateReport } from '../../src/transports/validate/report.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';
import { gitRepo } from '../validate/git-repo.js';

const yaml = (...objects: KubeObject[]): string => objects.map((o) => YAML.stringify(o)).join('---\n');
const stripped = yaml(machine({ name: 'master-0', preDrain: [] }));

/** A repository whose main holds manifests/cp.yaml with master-0 and its etcd hook, and a clean worker. */
async function baseRepo(): Promise<Awaited<ReturnType<typeof gitRepo>>> {
  return gitRepo({
    'manifests/cp.yaml': yaml(machine({ name: 'master-0', preDrain: [ETCD] })),
    'manifests/workers.yaml': yaml(machine({ name: 'worker-0', role: 'worker' })),
  });
}

describe('validate --old-ref: the old version is found by identity anywhere at the revision', () => {
  let repo: Awaited<ReturnType<typeof baseRepo>>;
  before(async () => {
    repo = await baseRepo();
  });
  after(async () => rm(repo.dir, { recursive: true, force: true }));

  test('stdin (kustomize build | validate --old-ref main -): stripping the etcd hook is an UPDATE, denied', async () => {
    const r = await cli(['validate', '--old-ref', 'main', '--output', 'json', '-'], {
      cwd: repo.dir,
      stdin: stripped,
    });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as ValidateReport;
    assert.deepEqual(
      report.results.map((x) => [x.file, x.object.name, x.operation, x.allowed, x.old?.file]),
      [['<stdin>', 'master-0', 'UPDATE', false, 'main:manifests/cp.yaml']],
    );
    // Nothing at the revision is reported deleted for a stream: which objects it should hold is not known.
    assert.deepEqual(report.deletions, []);
  });

  test('a moved file (manifests/cp.yaml -> clusters/prod/cp.yaml): denied', async () => {
    await mkdir(join(repo.dir, 'clusters/prod'), { recursive: true });
    await writeFile(join(repo.dir, 'clusters/prod/cp.yaml'), stripped);
    const r = await cli(['validate', '--old-ref', 'main', 'clusters/prod'], { cwd: repo.dir });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /clusters\/prod\/cp\.yaml:1 \(document 1\): Machine\.machine\.openshift\.io openshift-machine-api\/master-0 \[UPDATE\]: DENIED/,
    );
  });

  test('a renamed file named on its own (manifests/master-0.yaml): denied', async () => {
    await writeFile(join(repo.dir, 'manifests/master-0.yaml'), stripped);
    const r = await cli(['validate', '--old-ref', 'main', 'manifests/master-0.yaml'], { cwd: repo.dir });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /\[UPDATE\]: DENIED\n {2}deny owner-only-removal spec\.lifecycleHooks\.preDrain\[0\]/);
    await rm(join(repo.dir, 'manifests/master-0.yaml'));
  });

  test('an object judged as CREATE says that no old version was found (text note, JSON field)', async () => {
    const input = yaml(machine({ name: 'master-9', preDrain: [ETCD] }));
    const text = await cli(['validate', '--old-ref', 'main', '-'], { cwd: repo.dir, stdin: input });
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(
      text.stdout,
      /<stdin>:1 \(document 1\): Machine\.machine\.openshift\.io openshift-machine-api\/master-9 \[CREATE\]: allowed\n {2}note: no old version of Machine\.machine\.openshift\.io openshift-machine-api\/master-9 was found at main: judged as a CREATE/,
    );
    const json = await cli(['validate', '--old-ref', 'main', '--output', 'json', '-'], {
      cwd: repo.dir,
      stdin: input,
    });
    const [r] = (JSON.parse(json.stdout) as ValidateReport).results;
    assert.equal(r?.oldVersionFound, false);
    const junit = await cli(['validate', '--old-ref', 'main', '--output', 'junit', '-'], {
      cwd: repo.dir,
      stdin: input,
    });
    assert.match(
      junit.stdout,
      /<system-out>note: no old version of Machine\.machine\.openshift\.io openshift-machine-api\/master-9/,
    );
    // Without old objects there is nothing to find: no note, no field.
    const plain = await cli(['validate', '--output', 'json', '-'], { cwd: repo.dir, stdin: input });
    assert.equal((JSON.parse(plain.stdout) as ValidateReport).results[0]?.oldVersionFound, undefined);
  });
});

describe('validate: an identity defined twice is an error naming both places', () => {
  test('in the new manifests: exit 2', async () => {
    const repo = await baseRepo();
    try {
      const r = await cli(['validate', 'manifests', '-'], { cwd: repo.dir, stdin: stripped });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(
        r.stderr,
        /Machine openshift-machine-api\/master-0 is defined twice: manifests\/cp\.yaml \(document 1, line 1\) and <stdin> \(document 1, line 1\)/,
      );
    } finally {
      await rm(repo.dir, { recursive: true, force: true });
    }
  });

  test('at the old revision, for an object the inputs hold: exit 2', async () => {
    const repo = await baseRepo();
    try {
      await writeFile(join(repo.dir, 'manifests/copy.yaml'), yaml(machine({ name: 'master-0', preDrain: [ETCD] })));
      repo.git('add', '-A');
      repo.git('commit', '-q', '-m', 'a copy');
      const r = await cli(['validate', '--old-ref', 'main', '-'], { cwd: repo.dir, stdin: stripped });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(
        r.stderr,
        /Machine openshift-machine-api\/master-0 is defined twice: main:manifests\/copy\.yaml \(document 1, line 1\) and main:manifests\/cp\.yaml \(document 1, line 1\)/,
      );
    } finally {
      await rm(repo.dir, { recursive: true, force: true });
    }
  });
});

describe('validate --old DIR: the old version by identity, whatever the layout', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-validate-old-'));
    await mkdir(join(dir, 'before/nested/deeper'), { recursive: true });
    await writeFile(
      join(dir, 'before/nested/deeper/all.yaml'),
      yaml(machine({ name: 'worker-0', role: 'worker' }), machine({ name: 'master-0', preDrain: [ETCD] })),
    );
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  test('stdin against --old DIR: denied; what the old set holds and the stream lacks is a deletion', async () => {
    const r = await cli(['validate', '--old', 'before', '--output', 'json', '-'], { cwd: dir, stdin: stripped });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as ValidateReport;
    assert.equal(report.results[0]?.operation, 'UPDATE');
    assert.deepEqual(
      report.deletions.map((d) => d.object.name),
      ['worker-0'],
    );
  });
});

describe('validate: no objects is an input error unless --allow-empty', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-validate-empty-'));
    await mkdir(join(dir, 'emptydir'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  test('an empty directory or an empty stream: exit 2, saying so; with --allow-empty: exit 0', async () => {
    for (const [args, stdin] of [
      [['emptydir'], ''],
      [['-'], '\n'],
      [['-'], '---\n# only a comment\n'],
    ] as const) {
      const r = await cli(['validate', ...args], { cwd: dir, stdin });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /no objects to validate in emptydir|no objects to validate in <stdin>/);
      assert.match(r.stderr, /--allow-empty/);
      const allowed = await cli(['validate', '--allow-empty', ...args], { cwd: dir, stdin });
      assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
    }
  });
});

describe('validate -n/--namespace: objects without metadata.namespace', () => {
  const base = (): KubeObject => {
    const m = machine({ name: 'master-0' });
    delete (m['metadata'] as Record<string, unknown>)['namespace'];
    return m;
  };

  test('-n gives the namespace, as kubectl apply -n does: the control-plane Machine gets the etcd hook', async () => {
    const r = await cli(['validate', '-n', 'openshift-machine-api', '--output', 'json', '-'], {
      stdin: yaml(base()),
    });
    assert.equal(r.code, 0, r.stderr);
    const [res] = (JSON.parse(r.stdout) as ValidateReport).results;
    assert.equal(res?.object.namespace, 'openshift-machine-api');
    assert.deepEqual(res?.patch, [{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] }]);
    const long = await cli(['validate', '--namespace', 'openshift-machine-api', '--output', 'json', '-'], {
      stdin: yaml(base()),
    });
    assert.deepEqual((JSON.parse(long.stdout) as ValidateReport).results[0]?.patch, res?.patch);
  });

  test('-n that is no namespace name: exit 2, saying so', async () => {
    for (const bad of ['Openshift_Machine_API', 'a'.repeat(64), '']) {
      const r = await cli(['validate', '-n', bad, '-'], { stdin: yaml(base()) });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /-n\/--namespace: ".*" is not a namespace name/);
    }
  });

  test('without -n: a note naming the default-hook rule that could not be decided', async () => {
    const r = await cli(['validate', '-'], { stdin: yaml(base()) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /Machine\.machine\.openshift\.io master-0 \[CREATE\]: allowed\n {2}note: no namespace: default hook rule "etcd-quorum-protection" \(namespaces openshift-machine-api\) could not be decided; give -n\/--namespace/,
    );
  });

  test('-n matches the old version too: a namespace-less base at the revision, stripped in the stream', async () => {
    const repo = await gitRepo({ 'base/cp.yaml': yaml({ ...base(), spec: { lifecycleHooks: { preDrain: [ETCD] } } }) });
    try {
      const r = await cli(['validate', '--old-ref', 'main', '-n', 'openshift-machine-api', '-'], {
        cwd: repo.dir,
        stdin: yaml({ ...base(), spec: { lifecycleHooks: { preDrain: [] } } }),
      });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /\[UPDATE\]: DENIED/);
    } finally {
      await rm(repo.dir, { recursive: true, force: true });
    }
  });
});

describe('validate --old-ref: what else the repository holds', () => {
  test('a file at the revision that is not YAML (a Helm template) is named in a note, not fatal; a JSON file that is no object is ignored', async () => {
    const repo = await gitRepo({
      'manifests/cp.yaml': yaml(machine({ name: 'master-0', preDrain: [ETCD] })),
      'charts/app/templates/deploy.yaml': 'metadata:\n  name: {{ .Release.Name }}\n  labels: {{- include "x" . }}\n',
      'tools/package.json': '{"name": "tools", "version": "1.0.0"}\n',
    });
    try {
      const r = await cli(['validate', '--old-ref', 'main', '-'], {
        cwd: repo.dir,
        stdin: stripped,
      });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(
        r.stdout,
        /note: not searched for old versions, as they are not YAML: main:charts\/app\/templates\/deploy\.yaml \(an object whose old version is there is judged as a CREATE\)/,
      );
      assert.doesNotMatch(r.stdout, /package\.json/);
      // Inside the paths given, the same file is an input error, as in a directory walk.
      const inside = await cli(['validate', '--old-ref', 'main', 'charts', '-'], { cwd: repo.dir, stdin: stripped });
      assert.equal(inside.code, 2, inside.stdout + inside.stderr);
    } finally {
      await rm(repo.dir, { recursive: true, force: true });
    }
  });
});
