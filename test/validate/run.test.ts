// validateInputs: manifests judged through the webhook's own path (mutate, then validate), as CREATE or as the
// UPDATE an --old version makes them, plus deletions, AdmissionReviews, CRD ratcheting and line numbers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { KubeObject } from '../../src/core/types.js';
import { AppError } from '../../src/errors.js';
import { CrdSet } from '../../src/transports/validate/crd.js';
import { DUPLICATE_KEY } from '../../src/infrastructure/manifests/documents.js';
import { DEFAULT_USER } from '../../src/transports/validate/report.js';
import { validateInputs } from '../../src/transports/validate/run.js';
import { admissionReview, ETCD, machine, USERS } from '../fixtures/openshift.js';

const yaml = (...objects: KubeObject[]): string => objects.map((o) => YAML.stringify(o)).join('---\n');
const options = { policy: DEFAULT_POLICY, userInfo: DEFAULT_USER };

describe('validateInputs', () => {
  test('CREATE of a control-plane Machine without the etcd hook: allowed, with the patch the webhook would apply', () => {
    const report = validateInputs([{ file: 'cp.yaml', text: yaml(machine({ name: 'master-0' })) }], undefined, options);
    const [r] = report.results;
    assert.equal(r?.operation, 'CREATE');
    assert.equal(r?.allowed, true);
    assert.deepEqual(r?.findings, []);
    assert.deepEqual(r?.patch, [{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] }]);
    assert.deepEqual(r?.changes, [
      'etcd-quorum-protection: added preDrain hook "EtcdQuorumOperator" owned by "clusteroperator/etcd"',
    ]);
    assert.deepEqual(report.summary, { objects: 1, allowed: 1, denied: 0, warnings: 0, patched: 1, deletions: 0 });
    assert.deepEqual(report.userInfo, { username: 'hookkeeper-validate', groups: [] });
  });

  test('with --old, removing the etcd hook is an UPDATE by the given user: denied unless it is the etcd operator', () => {
    const old = [{ file: 'old.yaml', text: yaml(machine({ preDrain: [ETCD] })) }];
    const now = [{ file: 'new.yaml', text: yaml(machine({ preDrain: [] })) }];
    const denied = validateInputs(now, old, options);
    const [r] = denied.results;
    assert.equal(r?.operation, 'UPDATE');
    assert.equal(r?.allowed, false);
    assert.equal(r?.findings[0]?.rule, 'owner-only-removal');
    assert.equal(r?.findings[0]?.severity, 'deny');
    assert.match(
      r?.findings[0]?.message ?? '',
      /"hookkeeper-validate" may not remove preDrain hook "EtcdQuorumOperator"/,
    );
    // The hook is gone from the new file: the finding points at it in the old file.
    const lines = old[0]?.text.split('\n') ?? [];
    assert.equal(r?.findings[0]?.line, undefined);
    assert.equal(r?.findings[0]?.old?.file, 'old.yaml');
    assert.match(lines[(r?.findings[0]?.old?.line ?? 0) - 1] ?? '', /EtcdQuorumOperator/);
    // Offline, a grant to the identity validate judges as changes nothing: it says to give --as, and the owner's grant.
    const message = r?.findings[0]?.message ?? '';
    assert.doesNotMatch(message, /clusterrolebinding \S+ --clusterrole=\S+ --user=hookkeeper-validate/);
    assert.match(message, /validate judged this as "hookkeeper-validate": give --as \(and --as-group\) the identity/);
    assert.ok(
      message.endsWith(
        "in the cluster, the owner's controller acts for it through a grant: kubectl create clusterrole " +
          'hookowner-clusteroperator-etcd --verb=remove --resource=hookowners.hookkeeper.io ' +
          '--resource-name=clusteroperator/etcd && kubectl create clusterrolebinding hookowner-clusteroperator-etcd ' +
          '--clusterrole=hookowner-clusteroperator-etcd --serviceaccount=<namespace>:<name>',
      ),
      message,
    );
    const asOperator = validateInputs(now, old, { ...options, userInfo: USERS.etcdOperator });
    assert.equal(asOperator.results[0]?.allowed, true);
  });

  test("offline, RBAC is not visible: an unregistered owner's removal gets unverifiedRemoval, with a note", () => {
    const backup = { name: 'BackupFileSystem', owner: 'my-backup-controller' };
    const old = [{ file: 'old.yaml', text: yaml(machine({ preDrain: [ETCD, backup] })) }];
    const now = [{ file: 'new.yaml', text: yaml(machine({ preDrain: [ETCD] })) }];
    const warned = validateInputs(now, old, options);
    assert.equal(warned.results[0]?.allowed, true);
    // The webhook's warning, as a finding: counted, with its rule, the removed hook's path and its line (old file).
    const oldLine = (old[0]?.text.split('\n') ?? []).findIndex((l) => l.includes('BackupFileSystem')) + 1;
    assert.deepEqual(warned.results[0]?.findings, [
      {
        rule: 'owner-only-removal',
        severity: 'warn',
        path: 'spec.lifecycleHooks.preDrain[1]',
        old: { file: 'old.yaml', line: oldLine },
        message:
          'unverified: hook BackupFileSystem of my-backup-controller; grant remove on hookowners/my-backup-controller; by hookkeeper-validate',
        // A warning says how to fix it, as a denial does: protect the owner, so its hook is removed by it alone.
        fix:
          'if "my-backup-controller" removed its own hook, nothing is wrong; to have removals of its hooks verified, ' +
          'grant it to the controller that owns the hook (kubectl create clusterrole hookowner-my-backup-controller ' +
          '--verb=remove --resource=hookowners.hookkeeper.io --resource-name=my-backup-controller && kubectl create ' +
          'clusterrolebinding hookowner-my-backup-controller --clusterrole=hookowner-my-backup-controller ' +
          '--serviceaccount=<namespace>:<name>) or register it under owners in the hookkeeper policy; otherwise keep ' +
          'the hook: "my-backup-controller" removes it when its work is done',
        hook: { stage: 'preDrain', name: 'BackupFileSystem', owner: 'my-backup-controller' },
      },
    ]);
    assert.deepEqual(warned.results[0]?.notices, []);
    assert.equal(warned.summary.warnings, 1);
    assert.deepEqual(warned.notes, [
      "owner-only-removal: the cluster's RBAC was not consulted (validate is offline): only the policy's owners registry " +
        'and break-glass verify a removal here, so a removal an RBAC grant (remove on hookowners.hookkeeper.io/<owner>) ' +
        'would allow in the cluster is denied for a registered owner and gets unverifiedRemoval (warn) for any other',
    ]);
    const denied = validateInputs(now, old, { ...options, policy: { ...DEFAULT_POLICY, unverifiedRemoval: 'deny' } });
    assert.equal(denied.results[0]?.allowed, false);
    assert.match(denied.results[0]?.findings[0]?.message ?? '', /unverifiedRemoval is deny/);
    assert.match(denied.notes[0] ?? '', /gets unverifiedRemoval \(deny\) for any other$/);
    // A removal the registry allows needs no RBAC: no note.
    const byOwner = validateInputs(
      [{ file: 'new.yaml', text: yaml(machine({ preDrain: [backup] })) }],
      [{ file: 'old.yaml', text: yaml(machine({ preDrain: [ETCD, backup] })) }],
      { ...options, userInfo: USERS.etcdOperator },
    );
    assert.deepEqual([byOwner.results[0]?.notices, byOwner.notes], [[], []]);
  });

  test('a denied object is not counted as patched: the API server never stores the mutation', () => {
    const report = validateInputs(
      [{ file: 'a.yaml', text: yaml(machine({ preDrain: [{ name: 'bad name', owner: 'x-team' }] })) }],
      undefined,
      options,
    );
    assert.equal(report.results[0]?.allowed, false);
    assert.ok((report.results[0]?.patch.length ?? 0) > 0, 'the mutating webhook still has its patch');
    assert.deepEqual(report.summary, { objects: 1, allowed: 0, denied: 1, warnings: 0, patched: 0, deletions: 0 });
  });

  test('the RBAC note only where a removal was judged without RBAC, not for an owner strictOwners refuses', () => {
    const strict = { ...options, policy: { ...DEFAULT_POLICY, strictOwners: true } };
    const added = validateInputs(
      [{ file: 'a.yaml', text: yaml(machine({ role: 'worker', preDrain: [{ name: 'Backup', owner: 'x-team' }] })) }],
      undefined,
      strict,
    );
    assert.equal(added.results[0]?.findings[0]?.rule, 'owner-only-removal');
    assert.deepEqual(added.notes, []);
    const removed = validateInputs(
      [{ file: 'a.yaml', text: yaml(machine({ preDrain: [] })) }],
      [{ file: 'o.yaml', text: yaml(machine({ preDrain: [ETCD] })) }],
      strict,
    );
    assert.match(removed.notes[0] ?? '', /the cluster's RBAC was not consulted/);
  });

  test('objects only in the old manifests are deletions: reported, allowed', () => {
    const old = [
      {
        file: 'old.yaml',
        text: yaml(machine({ name: 'gone', preDrain: [ETCD] }), machine({ name: 'kept', preDrain: [ETCD] })),
      },
    ];
    const report = validateInputs(
      [{ file: 'new.yaml', text: yaml(machine({ name: 'kept', preDrain: [ETCD] })) }],
      old,
      options,
    );
    assert.equal(report.results[0]?.operation, 'UPDATE');
    assert.deepEqual(
      report.deletions.map((d) => [d.object, d.allowed, d.findings, d.file, d.document]),
      [
        [
          {
            apiVersion: 'machine.openshift.io/v1beta1',
            kind: 'Machine',
            namespace: 'openshift-machine-api',
            name: 'gone',
          },
          true,
          [],
          'old.yaml',
          1,
        ],
      ],
    );
    assert.equal(report.summary.deletions, 1);
    assert.equal(report.summary.denied, 0);
  });

  test('old and new match on API group, kind, namespace and name, not on version', () => {
    const old = machine({ name: 'm', preDrain: [ETCD] });
    const moved = { ...machine({ name: 'm', namespace: 'elsewhere', preDrain: [] }) };
    const report = validateInputs(
      [{ file: 'n.yaml', text: yaml(moved) }],
      [{ file: 'o.yaml', text: yaml(old) }],
      options,
    );
    assert.equal(report.results[0]?.operation, 'CREATE');
    assert.equal(report.deletions.length, 1);
  });

  test('an AdmissionReview document is judged as sent (operation and user from the request)', () => {
    const review = admissionReview({
      operation: 'UPDATE',
      object: machine({ preDrain: [] }),
      oldObject: machine({ preDrain: [ETCD] }),
      user: USERS.alice,
    });
    const report = validateInputs([{ file: 'r.json', text: JSON.stringify(review, null, 2) }], undefined, options);
    const [r] = report.results;
    assert.equal(r?.source, 'AdmissionReview');
    assert.equal(r?.operation, 'UPDATE');
    assert.equal(r?.allowed, false);
    assert.match(r?.findings[0]?.message ?? '', /"alice" may not remove/);
    // The removed hook is in the request's oldObject: the finding points there, in the same file.
    const text = JSON.stringify(review, null, 2).split('\n');
    const oldObjectAt = text.findIndex((l) => l.includes('"oldObject"'));
    const etcdLine = text.findIndex((l, i) => i > oldObjectAt && l.includes('EtcdQuorumOperator')) + 1;
    assert.deepEqual(r?.findings[0]?.old, { file: 'r.json', line: etcdLine - 1 });
  });

  test('findings in a List point at the item and the field', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        machine({ name: 'ok', preDrain: [ETCD] }),
        machine({ name: 'bad', preDrain: [ETCD, { name: 'x', owner: 'someone' }] }),
      ],
    };
    const text = YAML.stringify(list);
    const report = validateInputs([{ file: 'l.yaml', text }], undefined, options);
    const bad = report.results[1];
    assert.equal(bad?.item, 1);
    assert.equal(bad?.allowed, false);
    const lines = text.split('\n');
    assert.match(lines[(bad?.line ?? 0) - 1] ?? '', /^ {2}- apiVersion: machine\.openshift\.io\/v1beta1/);
    const naming = bad?.findings.find((f) => f.path === 'spec.lifecycleHooks.preDrain[1].name');
    assert.match(lines[(naming?.line ?? 0) - 1] ?? '', /name: x$/);
  });

  test('findings in the second and later documents of a file point at lines in the file, as do the documents', () => {
    const bad = machine({ name: 'bad', role: 'worker', preDrain: [{ name: 'x', owner: 'someone' }] });
    const text = [
      '# machines of pool a',
      YAML.stringify(machine({ name: 'ok', preDrain: [ETCD] })),
      '---',
      '# the bad one',
      YAML.stringify(bad),
      '...',
      '---',
      YAML.stringify(bad).replace('name: bad', 'name: bad-2'),
    ].join('\n');
    const lines = text.split('\n');
    const report = validateInputs([{ file: 'pool.yaml', text }], undefined, options);
    assert.deepEqual(
      report.results.map((r) => [r.document, r.allowed]),
      [
        [1, true],
        [2, false],
        [3, false],
      ],
    );
    for (const r of report.results)
      assert.match(lines[r.line - 1] ?? '', /^apiVersion: machine\.openshift\.io\/v1beta1$/, `document ${r.document}`);
    assert.deepEqual(
      report.results.map((r) => r.line),
      [2, lines.indexOf('# the bad one') + 2, lines.indexOf('...') + 3],
    );
    for (const r of report.results.slice(1)) {
      const naming = r.findings.find(
        (f) => f.rule === 'hook-naming' && f.path === 'spec.lifecycleHooks.preDrain[0].name',
      );
      assert.ok(naming?.line, `document ${r.document}: ${JSON.stringify(r.findings)}`);
      assert.match(lines[naming.line - 1] ?? '', /^ {6}- name: x$/);
      assert.ok(
        naming.line > r.line && naming.line < (r.document === 2 ? lines.indexOf('...') + 1 : lines.length),
        'inside its own document',
      );
    }
  });

  test("a YAML error in a later document names the file and its line in the file, beside the other files' results", () => {
    const good = { file: 'good.yaml', text: yaml(machine({ preDrain: [ETCD] })) };
    const broken = {
      file: 'broken.yaml',
      text: [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: a}',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: b}',
        'kind: Secret',
        '',
      ].join('\n'),
    };
    const other = {
      file: 'other.yaml',
      text: yaml(machine({ name: 'bad', preDrain: [{ name: 'bad name', owner: 'x' }] })),
    };
    const report = validateInputs([good, broken, other], undefined, options);
    assert.deepEqual(report.problems, [{ file: 'broken.yaml', line: 8, message: DUPLICATE_KEY }]);
    assert.deepEqual(
      report.results.map((r) => [r.file, r.allowed]),
      [
        ['good.yaml', true],
        ['other.yaml', false],
      ],
    );
  });

  test('an unreadable --old file is an input error naming it; problems in the new files come first', () => {
    const now = [{ file: 'new.yaml', text: yaml(machine({ preDrain: [ETCD] })) }];
    const badOld = [{ file: 'old.yaml', text: 'kind: [' }];
    assert.throws(
      () => validateInputs(now, badOld, options),
      (err: unknown) =>
        err instanceof AppError && err.problems.map((p) => `${p.file}:${p.line}`).join() === 'old.yaml:1',
    );
    assert.throws(
      () => validateInputs([{ file: 'new.yaml', text: 'a: [' }], badOld, options),
      (err: unknown) => err instanceof AppError && err.problems.map((p) => p.file).join() === 'new.yaml,old.yaml',
    );
  });

  test('an unreadable input hides no deletion it may hold: none are listed, and a note says why', () => {
    const old = [
      {
        file: 'old.yaml',
        text: yaml(machine({ name: 'a', preDrain: [ETCD] }), machine({ name: 'b', preDrain: [ETCD] })),
      },
    ];
    const now = [
      { file: 'a.yaml', text: yaml(machine({ name: 'a', preDrain: [ETCD] })) },
      { file: 'b.yaml', text: 'kind: [' },
    ];
    const report = validateInputs(now, old, options);
    assert.deepEqual(report.deletions, []);
    assert.equal(report.problems[0]?.file, 'b.yaml');
    assert.ok(report.notes.some((n) => n.startsWith('deletions are not listed')));
  });

  test('with --crd, a CRD finding in a later document points at its field in the file', () => {
    const crds = CrdSet.parse([
      { file: 'w.yaml', text: readFileSync(new URL('../fixtures/validate-crd-widgets.yaml', import.meta.url), 'utf8') },
    ]);
    const widget = (name: string, spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'example.hookkeeper.io/v1',
      kind: 'Widget',
      metadata: { name, namespace: 'ns' },
      spec,
    });
    const text = yaml(
      widget('a', { size: 'small' }),
      machine({ preDrain: [ETCD] }),
      widget('c', { size: 'small', replicas: 'many' }),
    );
    const report = validateInputs([{ file: 'mixed.yaml', text }], undefined, { ...options, crds });
    const [first, , third] = report.results;
    assert.deepEqual(first?.findings, []);
    assert.deepEqual(
      third?.findings.map((f) => [f.rule, f.severity, f.path]),
      [['crd-schema', 'deny', 'spec.replicas']],
    );
    const lines = text.split('\n');
    const at = third?.findings[0]?.line ?? 0;
    assert.equal(lines[at - 1], '  replicas: many');
    assert.ok(at > lines.lastIndexOf('---') + 1);
  });

  test('a hook name that cannot become a Cluster API annotation is a capi-migration warning: reported, not failed', () => {
    const report = validateInputs(
      [
        {
          file: 'w.yaml',
          text: yaml(
            machine({ role: 'worker', preDrain: [{ name: 'example.com/Backup', owner: 'backup-controller' }] }),
          ),
        },
      ],
      undefined,
      options,
    );
    const [r] = report.results;
    assert.equal(r?.allowed, true);
    assert.deepEqual(
      r?.findings.map((f) => [f.rule, f.severity]),
      [['capi-migration', 'warn']],
    );
    assert.equal(report.summary.warnings, 1);
  });

  test('CRD violations are denials, except on UPDATE where the stored object has them already (ratcheting)', () => {
    const crds = CrdSet.parse([
      { file: 'w.yaml', text: readFileSync(new URL('../fixtures/validate-crd-widgets.yaml', import.meta.url), 'utf8') },
    ]);
    const widget = (spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'example.hookkeeper.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns' },
      spec,
    });
    const old = [{ file: 'o.yaml', text: yaml(widget({ size: 'huge' })) }];
    const report = validateInputs([{ file: 'n.yaml', text: yaml(widget({ size: 'huge', replicas: 99 })) }], old, {
      ...options,
      crds,
    });
    assert.deepEqual(
      report.results[0]?.findings.map((f) => [f.rule, f.severity, f.path, f.line]),
      [
        ['crd-schema', 'warn', 'spec.size', 7],
        ['crd-schema', 'deny', 'spec.replicas', 8],
      ],
    );
  });

  test('an object defined twice is an input problem naming both places, never a silent pick', () => {
    const twice = [
      { file: 'a.yaml', text: yaml(machine({ preDrain: [ETCD] })) },
      { file: 'b.yaml', text: yaml(machine({ name: 'other' }), machine({ preDrain: [ETCD] })) },
    ];
    // The second document starts after the first one's lines and its "---".
    const second = YAML.stringify(machine({ name: 'other' })).split('\n').length + 1;
    const message = `Machine openshift-machine-api/ci-ln-7x2k9-master-0 is defined twice: a.yaml (document 1, line 1) and b.yaml (document 2, line ${second})`;
    const problems = (err: unknown): string[] => {
      assert.ok(err instanceof AppError && err.code === 'INPUT_INVALID');
      return err.problems.map((p) => p.message);
    };
    // In the inputs: a problem beside the results (exit 2).
    assert.deepEqual(
      validateInputs(twice, undefined, options).problems.map((p) => p.message),
      [message],
    );
    // On the old side too, for an object the inputs hold or lose.
    for (const now of [[{ file: 'new.yaml', text: yaml(machine({ preDrain: [] })) }], []])
      assert.throws(
        () => validateInputs(now, twice, options),
        (err: unknown) => (assert.deepEqual(problems(err), [message]), true),
      );
  });

  test("a removed hook's finding carries the old file and line, not a line of the new file", () => {
    const backup = { name: 'BackupFileSystem', owner: 'my-backup-controller' };
    const mirror = { name: 'MirrorDisk', owner: 'my-backup-controller' };
    const oldText = yaml(machine({ preDrain: [backup, ETCD, mirror] }));
    // The new file's preDrain[1] is another hook (MirrorDisk): pointing there would show the wrong hook.
    const newText = yaml(machine({ preDrain: [backup, mirror] }));
    const report = validateInputs(
      [{ file: 'new.yaml', text: newText }],
      [{ file: 'old.yaml', text: oldText }],
      options,
    );
    const [f] = report.results[0]?.findings ?? [];
    assert.equal(f?.rule, 'owner-only-removal');
    assert.equal(f?.path, 'spec.lifecycleHooks.preDrain[1]');
    assert.equal(f?.line, undefined);
    const etcdLine = oldText.split('\n').findIndex((l) => l.includes('EtcdQuorumOperator')) + 1;
    assert.deepEqual(f?.old, { file: 'old.yaml', line: etcdLine });
    assert.equal(report.results[0]?.old?.file, 'old.yaml');
  });

  test('a finding about the new object keeps the new file and line', () => {
    const oldText = yaml(machine({ preDrain: [ETCD] }));
    const newText = yaml(machine({ preDrain: [ETCD, { name: 'bad name', owner: 'x' }] }));
    const report = validateInputs(
      [{ file: 'new.yaml', text: newText }],
      [{ file: 'old.yaml', text: oldText }],
      options,
    );
    const [f] = report.results[0]?.findings ?? [];
    assert.equal(f?.rule, 'hook-naming');
    assert.equal(f?.old, undefined);
    assert.match(newText.split('\n')[(f?.line ?? 0) - 1] ?? '', /bad name/);
  });

  test('every unreadable input is reported at once, with file and line, and the rest is judged', () => {
    const report = validateInputs(
      [
        { file: 'a.yaml', text: 'a: [' },
        { file: 'b.yaml', text: 'kind: Foo\n' },
        { file: 'c.yaml', text: yaml(machine()) },
      ],
      undefined,
      options,
    );
    assert.deepEqual(
      report.problems.map((p) => [p.file, p.line]),
      [
        ['a.yaml', 1],
        ['b.yaml', 1],
      ],
    );
    assert.deepEqual(
      report.results.map((r) => r.file),
      ['c.yaml'],
    );
  });
});
