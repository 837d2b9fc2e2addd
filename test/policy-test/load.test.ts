// A test file's problems before any case runs, each in full: what the YAML, the document count and the schema say,
// as the policy loader words them (src/infrastructure/config/document.ts reads both).
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadTestFile } from '../../src/transports/policy-test/load.js';

async function problemsOf(text: string): Promise<unknown[]> {
  const cwd = await mkdtemp(join(tmpdir(), 'hk-policy-test-load-'));
  await writeFile(join(cwd, 't.yaml'), text);
  const loaded = await loadTestFile('t.yaml', cwd, new Map());
  assert.deepEqual(loaded.cases, []);
  return loaded.problems;
}

test('YAML that does not parse: its line and the parser message', async () => {
  assert.deepEqual(await problemsOf('apiVersion: hookkeeper.io/v1alpha1\nkind: [\n'), [
    {
      file: 't.yaml',
      line: 3,
      message: 'Flow sequence in block collection must be sufficiently indented and end with a ]',
    },
  ]);
});

test('two documents: one PolicyTest expected', async () => {
  assert.deepEqual(await problemsOf('kind: PolicyTest\n---\nkind: PolicyTest\n'), [
    { file: 't.yaml', message: 'expected one YAML document (a PolicyTest), found 2' },
  ]);
});

test('schema errors: a union type in words, a missing key, an unknown one; a duplicate key', async () => {
  const text = `apiVersion: hookkeeper.io/v1alpha1
kind: PolicyTest
policy: policy.yaml
cases:
  - name: a
    object: 5
    expect: {}
  - name: b
    name: c
    objectt: {}
    expect: {allowed: true}
`;
  // In file order; the policy the file names is not there, which is a problem of its own.
  assert.deepEqual(await problemsOf(text), [
    { file: 't.yaml', path: 'policy', line: 3, message: 'cannot read policy.yaml: no such file or directory' },
    { file: 't.yaml', path: 'cases[0].object', line: 6, message: 'must be string or object' },
    { file: 't.yaml', path: 'cases[0].expect', line: 7, message: "must have required property 'allowed'" },
    { file: 't.yaml', path: 'cases[1]', line: 8, message: 'give object (CREATE), oldObject (DELETE) or both (UPDATE)' },
    { file: 't.yaml', path: 'cases[1].name', line: 9, message: 'duplicate key "name" (first at line 8)' },
    { file: 't.yaml', path: 'cases[1].objectt', line: 10, message: 'unknown key "objectt": did you mean "object"?' },
  ]);
});

test('an object file is read as kubectl reads a manifest: a key kubectl would send as "false" is a problem', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'hk-policy-test-load-'));
  await writeFile(
    join(cwd, 't.yaml'),
    'apiVersion: hookkeeper.io/v1alpha1\nkind: PolicyTest\npolicy: policy.yaml\ncases:\n  - name: a\n    object: m.yaml\n    expect: {allowed: true}\n',
  );
  await writeFile(
    join(cwd, 'm.yaml'),
    'apiVersion: machine.openshift.io/v1beta1\nkind: Machine\nmetadata:\n  name: m\n  labels:\n    n: x\n',
  );
  const loaded = await loadTestFile('t.yaml', cwd, new Map());
  assert.deepEqual(
    loaded.problems.filter((p) => p.file === 'm.yaml'),
    [
      {
        file: 'm.yaml',
        line: 6,
        message: 'a mapping key must be a string; n is read as a boolean (kubectl sends it as "false"): quote it ("n")',
      },
    ],
  );
});
