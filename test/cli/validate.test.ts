// `hookkeeper validate` as CI runs it: inputs, every output format, UPDATE simulation and exit codes.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import type { KubeObject } from '../../src/core/types.js';
import type { ValidateReport } from '../../src/transports/validate/report.js';
import { ETCD, machine, USERS } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';
import { gitRepo } from '../validate/git-repo.js';
import { parseXml } from '../validate/xml.js';

const WIDGET_CRD = fileURLToPath(new URL('../fixtures/validate-crd-widgets.yaml', import.meta.url));
const yaml = (...objects: KubeObject[]): string => objects.map((o) => YAML.stringify(o)).join('---\n');

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookkeeper-validate-'));
  await mkdir(join(dir, 'manifests/workers'), { recursive: true });
  await mkdir(join(dir, 'old'), { recursive: true });
  await writeFile(
    join(dir, 'manifests/control-plane.yaml'),
    yaml(machine({ name: 'master-0', preDrain: [ETCD] }), machine({ name: 'master-1' })),
  );
  await writeFile(
    join(dir, 'manifests/workers/workers.json'),
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [machine({ name: 'worker-0', role: 'worker' })] }, null, 2),
  );
  await writeFile(join(dir, 'manifests/README.md'), '# not read: not a manifest extension\n');
  await writeFile(
    join(dir, 'bad-hook.yaml'),
    yaml(machine({ name: 'worker-9', role: 'worker', preDrain: [{ name: 'bad name', owner: 'ops-team' }] })),
  );
  await writeFile(join(dir, 'invalid.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n');
  await writeFile(
    join(dir, 'old/control-plane.yaml'),
    yaml(machine({ name: 'master-0', preDrain: [ETCD] }), machine({ name: 'master-2', preDrain: [ETCD] })),
  );
  await writeFile(join(dir, 'removal.yaml'), yaml(machine({ name: 'master-0', preDrain: [] })));
  await writeFile(
    join(dir, 'warn-policy.yaml'),
    'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement:\n  hook-naming: warn\n',
  );
  await writeFile(
    join(dir, 'widgets.yaml'),
    yaml({
      apiVersion: 'example.hookkeeper.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns' },
      spec: { size: 'huge', colour: 'red' },
    }),
  );
});
after(async () => rm(dir, { recursive: true, force: true }));

describe('hookkeeper validate: inputs and exit codes', () => {
  test('a directory, recursively (*.yaml, *.yml, *.json): all allowed -> exit 0, one summary line', async () => {
    const r = await cli(['validate', 'manifests'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '3 objects: 3 allowed (1 patched: see them with --show-patches), 0 denied, 0 warnings\n');
    assert.equal(r.stderr, '');
  });

  test('--show-patches: the control-plane Machine gets the etcd hook, shown as JSON Patch and in words', async () => {
    const r = await cli(['validate', '--show-patches', 'manifests/control-plane.yaml'], { cwd: dir });
    assert.equal(r.code, 0);
    assert.match(
      r.stdout,
      /^manifests\/control-plane\.yaml:\d+ \(document 2\): Machine\.machine\.openshift\.io openshift-machine-api\/master-1 \[CREATE\]: allowed, patched\n/,
    );
    assert.match(
      r.stdout,
      /\n {2}patch: \[\{"op":"add","path":"\/spec\/lifecycleHooks\/preDrain","value":\[\{"name":"EtcdQuorumOperator","owner":"clusteroperator\/etcd"\}\]\}\]\n/,
    );
    assert.match(
      r.stdout,
      /\n {2}change: etcd-quorum-protection: added preDrain hook "EtcdQuorumOperator" owned by "clusteroperator\/etcd"\n/,
    );
  });

  test('a denial -> exit 1, with file, line, document, object, rule, field path, message and fix', async () => {
    const r = await cli(['validate', 'bad-hook.yaml'], { cwd: dir });
    assert.equal(r.code, 1);
    const lines = r.stdout.split('\n');
    assert.match(
      lines[0] ?? '',
      /^bad-hook\.yaml:1 \(document 1\): Machine\.machine\.openshift\.io openshift-machine-api\/worker-9 \[CREATE\]: DENIED$/,
    );
    assert.match(lines[1] ?? '', /^ {2}deny hook-naming spec\.lifecycleHooks\.preDrain\[0\]\.name \(line \d+\)$/);
    assert.match(
      lines[2] ?? '',
      /^ {4}spec\.lifecycleHooks\.preDrain\[0\]\.name: Invalid value: "bad name": .* in body should match/,
    );
    assert.match(lines[3] ?? '', /^ {4}fix: give hook "bad name" a name of 3-256 characters/);
  });

  test('warnings do not fail: the same hook under `warn` enforcement (--config) -> exit 0', async () => {
    const r = await cli(['validate', '--config', 'warn-policy.yaml', 'bad-hook.yaml'], { cwd: dir });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /warn hook-naming spec\.lifecycleHooks\.preDrain\[0\]\.name/);
    assert.match(r.stdout, /1 allowed, 0 denied, 1 warning\n$/);
  });

  test('stdin with -', async () => {
    const r = await cli(['validate', '-'], {
      cwd: dir,
      stdin: yaml(machine({ name: 'x', role: 'worker', preDrain: [{ name: 'b', owner: 'ops-team' }] })),
    });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^<stdin>:1 \(document 1\): Machine\.machine\.openshift\.io openshift-machine-api\/x \[CREATE\]: DENIED/,
    );
  });

  test('unparseable YAML -> exit 2, naming file and line on stderr, beside the results of every other input', async () => {
    const r = await cli(['validate', 'manifests', 'invalid.yaml', 'bad-hook.yaml'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(
      r.stdout,
      /^bad-hook\.yaml:\d+ \(document 1\): Machine\.machine\.openshift\.io openshift-machine-api\/worker-9 \[CREATE\]: DENIED\n/m,
    );
    assert.match(
      r.stdout,
      /\n4 objects: 3 allowed \(1 patched: see them with --show-patches\), 1 denied, 0 warnings; 1 input error\n$/,
    );
    assert.match(
      r.stderr,
      /^hookkeeper validate: cannot validate an input: unreadable, not Kubernetes objects, or defined twice; the others are reported\n {2}invalid\.yaml:5: Flow sequence/,
    );
  });

  test('a stdin line longer than the API server accepts (3 MiB) -> exit 2, naming it, without reading on', async () => {
    const r = await cli(['validate', '-'], {
      cwd: dir,
      stdin: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {k: ${'z'.repeat(4 * 1024 * 1024)}}\n`,
    });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '0 objects: 0 allowed, 0 denied, 0 warnings; 1 input error\n');
    assert.equal(
      r.stderr,
      'hookkeeper validate: cannot validate an input: unreadable, not Kubernetes objects, or defined twice; the others are reported\n  <stdin>:4: line 4 is longer than 3 MiB, more than the API server accepts in one request\n',
    );
  });

  test(
    'an endless input that is not a regular file (/dev/zero) -> exit 2 at its first 3 MiB, naming it',
    { skip: existsSync('/dev/zero') ? false : 'no /dev/zero' },
    async () => {
      const r = await cli(['validate', '/dev/zero'], { cwd: dir });
      assert.equal(r.code, 2);
      assert.equal(
        r.stderr,
        'hookkeeper validate: cannot validate an input: unreadable, not Kubernetes objects, or defined twice; the others are reported\n  /dev/zero:1: line 1 is longer than 3 MiB, more than the API server accepts in one request\n',
      );
    },
  );

  test('a YAML alias bomb -> exit 2, naming file and line', async () => {
    const levels = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ];
    const r = await cli(['validate', '-'], {
      cwd: dir,
      stdin: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\ndata:\n${levels.map((l) => `  ${l}`).join('\n')}\n`,
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /\n {2}<stdin>:5: aliases expand beyond 100 nodes/);
  });

  test('usage errors -> exit 2', async () => {
    for (const args of [
      ['validate'],
      ['validate', '--output', 'xml', 'manifests'],
      ['validate', '--old', 'old', '--old-ref', 'HEAD', 'manifests'],
      ['validate', 'no-such-dir'],
      ['validate', '--crd', 'manifests/control-plane.yaml', 'manifests'],
      ['validate', '--crd', 'missing-crd.yaml', 'manifests'],
      ['validate', '-', '-'],
      ['validate', '--no-such-flag', 'manifests'],
    ]) {
      const r = await cli(args, { cwd: dir });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.notEqual(r.stderr, '', args.join(' '));
    }
  });
});

describe('hookkeeper validate: output formats', () => {
  test('--output json: the documented ValidateReport', async () => {
    const r = await cli(['validate', '--output', 'json', '--old', 'old', 'manifests', 'bad-hook.yaml'], { cwd: dir });
    assert.equal(r.code, 1);
    const report = JSON.parse(r.stdout) as ValidateReport;
    assert.equal(report.apiVersion, 'hookkeeper.io/v1alpha1');
    assert.equal(report.kind, 'ValidateReport');
    assert.deepEqual(report.summary, { objects: 4, allowed: 3, denied: 1, warnings: 0, patched: 1, deletions: 1 });
    const bad = report.results.find((x) => !x.allowed);
    assert.deepEqual(Object.keys(bad ?? {}).sort(), [
      'allowed',
      'changes',
      'document',
      'file',
      'findings',
      'line',
      'notes',
      'notices',
      'object',
      'oldVersionFound',
      'operation',
      'patch',
      'source',
    ]);
    assert.equal(bad?.oldVersionFound, false);
    assert.deepEqual(bad?.notes, [
      'no old version of Machine.machine.openshift.io openshift-machine-api/worker-9 was found in --old old: judged as a CREATE',
    ]);
    const updated = report.results.find((x) => x.operation === 'UPDATE');
    assert.deepEqual(updated?.old, { file: 'old/control-plane.yaml', document: 1, line: 1 });
    assert.deepEqual(bad?.object, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      namespace: 'openshift-machine-api',
      name: 'worker-9',
    });
    assert.deepEqual(Object.keys(bad?.findings[0] ?? {}).sort(), [
      'fix',
      'hook',
      'line',
      'message',
      'path',
      'rule',
      'severity',
    ]);
    const list = report.results.find((x) => x.file === 'manifests/workers/workers.json');
    assert.equal(list?.item, 0);
    assert.deepEqual(
      report.results.map((x) => [x.object.name, x.operation]),
      [
        ['master-0', 'UPDATE'],
        ['master-1', 'CREATE'],
        ['worker-0', 'CREATE'],
        ['worker-9', 'CREATE'],
      ],
    );
    assert.deepEqual(
      report.deletions.map((d) => [d.object.name, d.file, d.allowed]),
      [['master-2', 'old/control-plane.yaml', true]],
    );
  });

  test('--output junit: one testcase per object, failures for denials', async () => {
    const r = await cli(['validate', '--output', 'junit', 'manifests', 'bad-hook.yaml'], { cwd: dir });
    assert.equal(r.code, 1);
    const xml = parseXml(r.stdout);
    assert.deepEqual([xml.name, xml.attrs['tests'], xml.attrs['failures']], ['testsuites', '4', '1']);
    assert.deepEqual(
      xml.children.map((s) => [s.attrs['name'], s.children.length]),
      [
        ['manifests/control-plane.yaml', 2],
        ['manifests/workers/workers.json', 1],
        ['bad-hook.yaml', 1],
      ],
    );
    assert.equal(xml.children[2]?.children[0]?.children[0]?.attrs['type'], 'hook-naming');
  });
});

describe('hookkeeper validate: UPDATE simulation', () => {
  test('--old: removing the etcd hook is judged as an UPDATE by --as (default hookkeeper-validate): denied', async () => {
    const r = await cli(['validate', '--old', 'old', 'removal.yaml'], { cwd: dir });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /removal\.yaml:1 \(document 1\): Machine\.machine\.openshift\.io openshift-machine-api\/master-0 \[UPDATE\]: DENIED\n {2}deny owner-only-removal spec\.lifecycleHooks\.preDrain\[0\]/,
    );
    assert.match(r.stdout, /"hookkeeper-validate" may not remove preDrain hook "EtcdQuorumOperator"/);
    assert.match(
      r.stdout,
      /old\/control-plane\.yaml:\d+ \(document 2\): Machine\.machine\.openshift\.io openshift-machine-api\/master-2 \[DELETE\]: deleted from the manifests: informational/,
    );
  });

  test('a removal inside a List inside a List is reviewed, as kubectl flattens it: denied', async () => {
    const nested = {
      apiVersion: 'v1',
      kind: 'List',
      items: [{ apiVersion: 'v1', kind: 'List', items: [machine({ name: 'master-0', preDrain: [] })] }],
    };
    const r = await cli(['validate', '--old', 'old', '-'], { cwd: dir, stdin: YAML.stringify(nested) });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^<stdin>:\d+ \(document 1, item 0\): Machine\.machine\.openshift\.io openshift-machine-api\/master-0 \[UPDATE\]: DENIED\n {2}deny owner-only-removal/,
    );
  });

  test('a bad hook under a YAML merge key (<<: *anchor) is merged, as kubectl merges it: denied', async () => {
    const text = [
      'apiVersion: machine.openshift.io/v1beta1',
      'kind: Machine',
      'metadata: {name: worker-8, namespace: openshift-machine-api}',
      'spec:',
      '  <<: &spec',
      '    lifecycleHooks:',
      '      preDrain: [{name: bad name, owner: ops-team}]',
    ].join('\n');
    const r = await cli(['validate', '-'], { cwd: dir, stdin: text });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /deny hook-naming spec\.lifecycleHooks\.preDrain\[0\]\.name/);
  });

  test('--as the etcd operator: allowed; --as-group system:masters: allowed as break-glass, with a notice', async () => {
    const asOwner = await cli(['validate', '--old', 'old', '--as', USERS.etcdOperator.username, 'removal.yaml'], {
      cwd: dir,
    });
    assert.equal(asOwner.code, 0, asOwner.stdout);
    const glass = await cli(
      ['validate', '--old', 'old', '--as', 'kube:admin', '--as-group', 'system:masters', 'removal.yaml'],
      { cwd: dir },
    );
    assert.equal(glass.code, 0, glass.stdout);
    assert.match(
      glass.stdout,
      /\[UPDATE\]: allowed\n {2}notice: break-glass: kube:admin may remove preDrain hook EtcdQuorumOperator of clusteroperator\/etcd; audited/,
    );
  });

  test('--old-ref: the same paths at a git revision', async () => {
    const repo = await gitRepo({
      'manifests/cp.yaml': yaml(machine({ name: 'master-0', preDrain: [ETCD] })),
      'manifests/gone.yaml': yaml(machine({ name: 'master-3', preDrain: [ETCD] })),
    });
    try {
      await writeFile(join(repo.dir, 'manifests/cp.yaml'), yaml(machine({ name: 'master-0', preDrain: [] })));
      await rm(join(repo.dir, 'manifests/gone.yaml'));
      await writeFile(join(repo.dir, 'manifests/new.yaml'), yaml(machine({ name: 'master-4' })));
      const r = await cli(['validate', '--old-ref', 'HEAD', '--output', 'json', 'manifests'], { cwd: repo.dir });
      assert.equal(r.code, 1, r.stderr);
      const report = JSON.parse(r.stdout) as ValidateReport;
      assert.deepEqual(
        report.results.map((x) => [x.file, x.object.name, x.operation, x.allowed]),
        [
          ['manifests/cp.yaml', 'master-0', 'UPDATE', false],
          ['manifests/new.yaml', 'master-4', 'CREATE', true],
        ],
      );
      assert.deepEqual(
        report.deletions.map((d) => [d.file, d.object.name]),
        [['HEAD:manifests/gone.yaml', 'master-3']],
      );
      const bad = await cli(['validate', '--old-ref', 'no-such-ref', 'manifests'], { cwd: repo.dir });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--old-ref: "no-such-ref" is not a commit/);
    } finally {
      await rm(repo.dir, { recursive: true, force: true });
    }
  });
});

describe('hookkeeper validate --crd', () => {
  test('schema violations of the given CRD are denials with rule crd-schema', async () => {
    const r = await cli(['validate', '--crd', WIDGET_CRD, 'widgets.yaml'], { cwd: dir });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /deny crd-schema spec\.colour \(line 8\)\n {4}strict decoding error: unknown field "spec\.colour"\n/,
    );
    assert.match(
      r.stdout,
      /deny crd-schema spec\.size \(line 7\)\n {4}spec\.size: Unsupported value: "huge": supported values: "small", "medium", "large"\n {4}fix: use one of "small", "medium", "large"\n/,
    );
    assert.match(
      r.stdout,
      /note: widgets\.example\.hookkeeper\.io v1: 1 x-kubernetes-validations \(CEL\) rule\(s\) not checked/,
    );
  });

  test('--crd DIR reads every CRD file under the directory, as a CRD bundle is shipped', async () => {
    const crds = await mkdtemp(join(tmpdir(), 'hookkeeper-crds-'));
    try {
      await mkdir(join(crds, 'nested'));
      await writeFile(join(crds, 'nested', 'widgets.yaml'), await readFile(WIDGET_CRD, 'utf8'));
      await writeFile(join(crds, 'README.md'), '# not a CRD\n');
      const r = await cli(['validate', '--crd', crds, 'widgets.yaml'], { cwd: dir });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /deny crd-schema spec\.colour \(line 8\)/);
      const empty = await mkdtemp(join(tmpdir(), 'hookkeeper-crds-'));
      const none = await cli(['validate', '--crd', empty, 'widgets.yaml'], { cwd: dir });
      assert.equal(none.code, 2);
      assert.match(none.stderr, /--crd .*: no \.yaml, \.yml or \.json file in this directory/);
      await rm(empty, { recursive: true, force: true });
    } finally {
      await rm(crds, { recursive: true, force: true });
    }
  });

  test('without --crd the same object passes: only hook rules apply', async () => {
    const r = await cli(['validate', 'widgets.yaml'], { cwd: dir });
    assert.equal(r.code, 0);
  });
});
