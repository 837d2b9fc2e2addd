// `hookkeeper admission-policy render`: each output form, the version switch, the notes on stderr, the exit codes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { cli } from '../helpers/cli.js';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
}

const KIND_ORDER = [
  'ValidatingAdmissionPolicy',
  'MutatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicyBinding',
];

function notes(stderr: string): string[] {
  const lines = stderr.trimEnd().split('\n');
  for (const l of lines) assert.match(l, /^note: \S/);
  return lines.map((l) => l.slice('note: '.length));
}

function policyFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-native-'));
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, `apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n${text}`);
  return file;
}

describe('hookkeeper admission-policy render', () => {
  test('yaml (the default): a multi-document stream, policies before bindings, every name hookkeeper-*', async () => {
    const run = await cli(['admission-policy', 'render']);
    assert.equal(run.code, 0, run.stderr);
    const docs = parseAllDocuments(run.stdout).map((d) => d.toJS() as Obj);
    assert.ok(docs.length > 4);
    const order = docs.map((d) => KIND_ORDER.indexOf(d.kind));
    assert.ok(order.every((k) => k >= 0));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
      'apply order: policies, then bindings',
    );
    for (const d of docs) assert.match(d.metadata.name, /^hookkeeper-/);
    const map = docs.find((d) => d.kind === 'MutatingAdmissionPolicy');
    assert.equal(map?.apiVersion, 'admissionregistration.k8s.io/v1');
    // Every policy has its binding, by the same name.
    const bound = new Set(docs.filter((d) => d.kind.endsWith('Binding')).map((d) => d.spec['policyName']));
    for (const d of docs.filter((x) => !x.kind.endsWith('Binding')))
      assert.ok(bound.has(d.metadata.name), d.metadata.name);
    assert.ok(notes(run.stderr).some((n) => n.startsWith('owner-only-removal: CEL cannot list')));
  });

  test('-o json: a v1 List of the same objects', async () => {
    const [json, yaml] = await Promise.all([
      cli(['admission-policy', 'render', '-o', 'json']),
      cli(['admission-policy', 'render', '--output', 'yaml']),
    ]);
    assert.equal(json.code, 0, json.stderr);
    const list = JSON.parse(json.stdout) as { apiVersion: string; kind: string; items: Obj[] };
    assert.equal(list.apiVersion, 'v1');
    assert.equal(list.kind, 'List');
    assert.deepEqual(
      list.items,
      parseAllDocuments(yaml.stdout).map((d) => d.toJS() as Obj),
    );
    assert.equal(json.stderr, yaml.stderr);
  });

  test('--k8s-version 1.34-1.35: MutatingAdmissionPolicy v1beta1, with a note naming its feature gate and runtime-config', async () => {
    const run = await cli(['admission-policy', 'render', '-o', 'json', '--k8s-version', 'v1.35.8']);
    assert.equal(run.code, 0, run.stderr);
    const items = (JSON.parse(run.stdout) as { items: Obj[] }).items;
    for (const o of items.filter((i) => i.kind.startsWith('Mutating')))
      assert.equal(o.apiVersion, 'admissionregistration.k8s.io/v1beta1');
    for (const o of items.filter((i) => i.kind.startsWith('Validating')))
      assert.equal(o.apiVersion, 'admissionregistration.k8s.io/v1');
    const [first] = notes(run.stderr);
    assert.match(first ?? '', /--feature-gates=MutatingAdmissionPolicy=true/);
    assert.match(first ?? '', /--runtime-config=admissionregistration\.k8s\.io\/v1beta1=true/);
    const v136 = await cli(['admission-policy', 'render', '--k8s-version', '1.36']);
    assert.doesNotMatch(v136.stderr, /feature-gates/);
  });

  test('usage errors exit 2 with nothing on stdout: an old or malformed version, an unknown output form', async () => {
    for (const args of [
      ['--k8s-version', '1.33'],
      ['--k8s-version', 'latest'],
      ['-o', 'table'],
    ]) {
      const run = await cli(['admission-policy', 'render', ...args]);
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /^hookkeeper admission-policy render: /);
    }
    const old = await cli(['admission-policy', 'render', '--k8s-version', '1.33']);
    assert.match(old.stderr, /need Kubernetes 1\.34 or newer/);
  });

  test('--config: an invalid policy exits 2; child rules are noted as webhook-only', async () => {
    const bad = await cli(['admission-policy', 'render', '--config', policyFile('unverifiedRemoval: maybe\n')]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout, '');
    const children = await cli([
      'admission-policy',
      'render',
      '--config',
      join('test', 'fixtures', 'children-virtualmachine-policy.yaml'),
    ]);
    assert.equal(children.code, 0, children.stderr);
    const said = notes(children.stderr);
    for (const id of ['child-owner-reference', 'child-parent', 'child-finalizer'])
      assert.ok(
        said.some((n) => n.startsWith(`${id}: `)),
        id,
      );
  });

  test('--help says what it prints and the version rule', async () => {
    const run = await cli(['admission-policy', 'render', '--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /kubectl apply -f -/);
    assert.match(run.stdout, /--k8s-version/);
    assert.match(run.stdout, /1\.34-1\.35 v1beta1/);
  });
});
