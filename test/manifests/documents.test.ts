// Manifest parsing for `validate`: kubectl's document boundaries, lines of fields, file:line errors.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseYamlDocuments } from '../../src/infrastructure/config/yaml.js';
import { AppError } from '../../src/errors.js';
import { parseManifests } from '../../src/infrastructure/manifests/documents.js';
import { subjectsOf } from '../../src/transports/validate/objects.js';
import type { Problem } from '../../src/errors.js';

const MULTI = `# leading comment
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
data:
  script: |
    echo one
    --- not a marker: indented
---
# empty document follows
---
apiVersion: machine.openshift.io/v1beta1
kind: Machine
metadata:
  name: b
spec:
  lifecycleHooks:
    preDrain:
      - name: EtcdQuorumOperator
        owner: clusteroperator/etcd
...
---
apiVersion: v1
kind: Secret
metadata: {name: c}
`;

describe('parseManifests', () => {
  test('splits on document markers only at column 0, drops empty documents, counts lines in the file', () => {
    const docs = parseManifests(MULTI, 'm.yaml');
    assert.deepEqual(
      docs.map((d) => [d.index, d.line]),
      [
        [0, 3],
        [1, 14],
        [2, 25],
      ],
    );
    assert.equal(
      (docs[0]?.value as { data: { script: string } }).data.script,
      'echo one\n--- not a marker: indented\n',
    );
    assert.deepEqual((docs[2]?.value as { metadata: unknown }).metadata, { name: 'c' });
  });

  test('lineOf finds a field, and the nearest present parent of a missing one', () => {
    const doc = parseManifests(MULTI, 'm.yaml')[1];
    assert.ok(doc);
    assert.equal(doc.lineOf(['spec', 'lifecycleHooks', 'preDrain', 0, 'owner']), 22);
    assert.equal(doc.lineOf('/spec/lifecycleHooks/preDrain/0/name'), 21);
    assert.equal(doc.lineOf(['spec', 'lifecycleHooks', 'preTerminate']), 19);
    assert.equal(doc.lineOf([]), 14);
  });

  test('timestamps stay strings and 010 is octal, as kubectl reads them (kubectl-reading.test.ts has the rest)', () => {
    const [doc] = parseManifests('metadata:\n  deletionTimestamp: 2026-11-20T08:14:02Z\n  m: 010\n', 'x.yaml');
    assert.deepEqual(doc?.value, { metadata: { deletionTimestamp: '2026-11-20T08:14:02Z', m: 8 } });
  });

  test('a syntax error names file and line, worded as src/infrastructure/config/yaml.ts words it', () => {
    const text = 'apiVersion: v1\nkind: A\n---\nkind: B\nmetadata:\n  name: [x\n';
    const expected = (() => {
      try {
        parseYamlDocuments(text, 'bad.yaml');
      } catch (e) {
        return e as AppError;
      }
      return undefined;
    })();
    assert.ok(expected instanceof AppError);
    assert.throws(
      () => parseManifests(text, 'bad.yaml'),
      (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, 'INPUT_INVALID');
        assert.equal(err.message, expected.message);
        assert.match(err.message, /^bad\.yaml:\d+: cannot parse YAML/);
        assert.equal(err.problems[0]?.line, expected.problems[0]?.line);
        return true;
      },
    );
  });

  test('duplicate keys are an error, as in the project YAML reader', () => {
    assert.throws(
      () => parseManifests('a: 1\na: 2\n', 'dup.yaml'),
      (err: unknown) => err instanceof AppError && /^dup\.yaml:\d+:/.test(err.message),
    );
  });

  test('documents with aliases go through the alias-capped parser', () => {
    const [doc] = parseManifests('base: &b {x: 1}\nother: *b\n', 'a.yaml');
    assert.deepEqual(doc?.value, { base: { x: 1 }, other: { x: 1 } });
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    assert.throws(() => parseManifests(bomb, 'bomb.yaml'));
  });

  test('an alias bomb is an input error naming file and line, not a crash', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\n${bomb}\n`;
    assert.throws(
      () => parseManifests(text, 'bomb.yaml'),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'INPUT_INVALID' &&
        /^bomb\.yaml:5: /.test(e.message) &&
        /alias/.test(e.message) &&
        e.problems[0]?.line === 5 &&
        e.problems[0]?.file === 'bomb.yaml',
    );
  });

  test("merge keys (<<) are merged as kubectl's YAML reader merges them, with and without aliases", () => {
    const [viaAlias] = parseManifests('base: &b {x: 1, w: 2}\nother:\n  <<: *b\n  w: 3\n', 'a.yaml');
    assert.deepEqual(viaAlias?.value, { base: { x: 1, w: 2 }, other: { x: 1, w: 3 } });
    const [inline] = parseManifests('other:\n  <<: [{x: 1}, {z: 2}]\n  w: 3\n', 'a.yaml');
    assert.deepEqual(inline?.value, { other: { x: 1, z: 2, w: 3 } });
  });

  test('a merge key after an explicit key it sets is refused: kubectl would send the merged value', () => {
    // The issue's shape: the hooks stated, then emptied by a merge that kubectl applies last.
    const text =
      'apiVersion: machine.openshift.io/v1beta1\nkind: Machine\nmetadata: {name: m, namespace: ns}\nspec:\n' +
      '  lifecycleHooks:\n    preDrain: [{name: EtcdQuorumOperator, owner: clusteroperator/etcd}]\n' +
      '  <<: {lifecycleHooks: {}}\n';
    const refused = (line: number, set: number) => (e: unknown) =>
      e instanceof AppError &&
      e.code === 'INPUT_INVALID' &&
      e.problems[0]?.line === line &&
      new RegExp(`the merge key "<<" sets "lifecycleHooks", which line ${set} set before it`).test(e.message);
    assert.throws(() => parseManifests(`---\n${text}`, 'm.yaml'), refused(8, 6), 'inline');
    const listed = text.replace('<<: {lifecycleHooks: {}}', '<<: [{x: 1}, {lifecycleHooks: {}}]');
    assert.throws(() => parseManifests(`---\n${listed}`, 'm.yaml'), refused(8, 6), 'in a list');
    const aliased = `x-empty: &empty {lifecycleHooks: {}}\n${text.replace('<<: {lifecycleHooks: {}}', '<<: *empty')}`;
    assert.throws(() => parseManifests(`---\n${aliased}`, 'm.yaml'), refused(9, 7), 'through an alias');
    // A key after "<<" overrides it in both readings: no conflict.
    const [after] = parseManifests('spec:\n  <<: {lifecycleHooks: {}}\n  lifecycleHooks: {preDrain: []}\n', 'a.yaml');
    assert.deepEqual(after?.value, { spec: { lifecycleHooks: { preDrain: [] } } });
  });

  test('a mapping key that is not a string is refused: the cluster would not take it, so the gate must not', () => {
    const refused = (line: number, what: RegExp) => (e: unknown) =>
      e instanceof AppError && e.code === 'INPUT_INVALID' && e.problems[0]?.line === line && what.test(e.message);
    // A Helm line given as a manifest: "{{ .Release.Name }}" is a flow mapping whose key is a mapping.
    const helm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n';
    assert.throws(
      () => parseManifests(helm, 'cm.yaml'),
      refused(4, /^cm\.yaml:4: a mapping key must be a string; this one is a mapping .*helm template/),
    );
    for (const [text, line, what] of [
      ['metadata:\n  name: m\n  labels:\n    ? [a, b]\n    : x\n', 4, /this one is a sequence/],
      ['kind: Machine\nmetadata: {name: m, ~: x}\n', 2, /this one is null/],
      ['kind: Machine\nmetadata: {name: m, {a: 1}: x}\n', 2, /this one is a mapping$/],
      ['kind: Machine\nspec:\n  1: x\n', 3, /1 is read as a number \(kubectl sends it as "1"\): quote it \("1"\)/],
      ['kind: Machine\nspec:\n  true: x\n', 3, /true is read as a boolean .*: quote it \("true"\)/],
      ['kind: Machine\nspec:\n  on: x\n', 3, /on is read as a boolean \(kubectl sends it as "true"\)/],
    ] as const)
      assert.throws(() => parseManifests(`---\n${text}`, 'm.yaml'), refused(line + 1, what), text);
    // Quoted, they are strings: accepted, and JSON's keys are strings already.
    const [quoted] = parseManifests('spec:\n  "1": x\n  "true": w\n  "~": z\n', 'a.yaml');
    assert.deepEqual(quoted?.value, { spec: { '1': 'x', true: 'w', '~': 'z' } });
    const [json] = parseManifests('{"spec": {"1": {"x": [1, {"y": 2}]}}}', 'a.json');
    assert.deepEqual(json?.value, { spec: { '1': { x: [1, { y: 2 }] } } });
  });

  test('a document or line larger than the API server accepts (3 MiB) is refused with file and line', () => {
    const big = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n${Array.from({ length: 4096 }, (_, i) => `  k${i}: ${'x'.repeat(1024)}`).join('\n')}\n`;
    assert.throws(
      () => parseManifests(big, 'big.yaml'),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'INPUT_INVALID' &&
        /^big\.yaml:5: document 2 is larger than 3 MiB/.test(e.message) &&
        e.problems[0]?.line === 5,
    );
    const line = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: long}\ndata: {k: ${'y'.repeat(4 * 1024 * 1024)}}\n`;
    assert.throws(
      () => parseManifests(line, 'line.yaml'),
      (e: unknown) => e instanceof AppError && /^line\.yaml:4: line 4 is longer than 3 MiB/.test(e.message),
    );
  });

  test('splits as the `yaml` package does where kubectl agrees: same documents, values and lines, whatever the markers and comments', () => {
    // Lines kubectl and YAML read alike: not "----" (kubectl refuses it), "..." followed by more or %YAML directives
    // (kubectl cuts and reads them otherwise: kubectl-reading.test.ts), nor a lone CR at the end.
    const lines = [
      '---',
      '--- ',
      '---\t# c',
      '---  # x',
      '---\r',
      '# comment',
      ' # indented',
      '',
      '  ',
      'a: 1',
      'a: 3\r',
      'b: [1, 2]',
      'c: |',
      '  text',
      '  ---',
      '  ...',
      '- item',
      'kind: Foo',
      'g: "multi',
      '  line"',
      'h:',
      '  i: 2',
    ];
    const view = (
      docs: readonly { value: unknown; lineOf(path: (string | number)[]): number | undefined }[],
    ): unknown[] =>
      docs.map((d) => ({ value: d.value, root: d.lineOf([]), a: d.lineOf(['a']), i: d.lineOf(['h', 'i']) }));
    let compared = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...lines), { maxLength: 12 }), fc.boolean(), (picked, newline) => {
        const text = picked.join('\n') + (newline || picked.at(-1)?.endsWith('\r') ? '\n' : '');
        let reference: unknown[];
        try {
          reference = view(parseYamlDocuments(text, 'p.yaml').filter((d) => d.value !== null && d.value !== undefined));
        } catch {
          return; // not YAML: the error path is tested above
        }
        compared++;
        // The reference has no line for a missing field; ours falls back to the nearest parent (tested above).
        const ours = view(parseManifests(text, 'p.yaml')).map((d, i) =>
          Object.fromEntries(
            Object.entries(d as object).map(([k, v]) => [
              k,
              (reference[i] as Record<string, unknown> | undefined)?.[k] === undefined && k !== 'value' ? undefined : v,
            ]),
          ),
        );
        assert.deepEqual(ours, reference, JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
    assert.ok(compared > 500, `only ${compared} generated texts were YAML`);
  });

  test('CRLF files: document lines, field lines and values as with LF', () => {
    const lf = 'a: 1\n---\n# c\nb:\n  c: 2\n...\n---\nd: 3\n';
    const crlf = lf.replace(/\n/g, '\r\n');
    const view = (text: string): unknown =>
      parseManifests(text, 'w.yaml').map((d) => [d.line, d.value, d.lineOf(['b', 'c']), d.lineOf(['d'])]);
    assert.deepEqual(view(crlf), view(lf));
    assert.deepEqual(view(lf), [
      [1, { a: 1 }, 1, 1],
      [4, { b: { c: 2 } }, 5, 4],
      [8, { d: 3 }, 8, 8],
    ]);
  });

  test('JSON is YAML: a .json file parses, with lines', () => {
    const [doc] = parseManifests('{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": []\n}\n', 'l.json');
    assert.deepEqual(doc?.value, { apiVersion: 'v1', kind: 'List', items: [] });
    assert.equal(doc?.lineOf(['items']), 4);
  });
});

describe('subjectsOf', () => {
  const parse = (text: string): { subjects: ReturnType<typeof subjectsOf>; problems: Problem[] } => {
    const problems: Problem[] = [];
    return { subjects: subjectsOf('f.yaml', parseManifests(text, 'f.yaml'), problems), problems };
  };

  test('a v1 List yields its items, a typed list fills in apiVersion and kind', () => {
    const { subjects, problems } = parse(
      [
        'apiVersion: v1',
        'kind: List',
        'items:',
        '  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: x}}',
        '---',
        'apiVersion: machine.openshift.io/v1beta1',
        'kind: MachineList',
        'items:',
        '  - metadata: {name: m}',
      ].join('\n'),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      subjects.map(
        (s) => s.type === 'manifest' && [s.gvk, s.namespace, s.name, s.origin.document, s.origin.item, s.pointer],
      ),
      [
        [{ group: '', version: 'v1', kind: 'ConfigMap' }, 'x', 'a', 1, 0, ['items', 0]],
        [{ group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' }, undefined, 'm', 2, 0, ['items', 0]],
      ],
    );
  });

  test('a List inside a List is flattened, as kubectl flattens it: every object is reviewed', () => {
    const { subjects, problems } = parse(
      [
        'apiVersion: v1',
        'kind: List',
        'items:',
        '  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}',
        '  - apiVersion: v1',
        '    kind: List',
        '    items:',
        '      - {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}',
        '      - {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}]}',
      ].join('\n'),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      subjects.map(
        (s) => s.type === 'manifest' && [s.gvk.kind, s.name, s.origin.item, s.pointer, s.doc.lineOf(s.pointer)],
      ),
      [
        ['ConfigMap', 'a', 0, ['items', 0], 4],
        ['ConfigMap', 'b', 1, ['items', 1, 'items', 0], 8],
        ['ConfigMap', 'c', 1, ['items', 1, 'items', 1, 'items', 0], 9],
      ],
    );
  });

  test('an AdmissionReview is reviewed as sent: operation, user and object from the request', () => {
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u-1',
        kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
        operation: 'DELETE',
        userInfo: { username: 'alice' },
        oldObject: { metadata: { name: 'm' } },
        object: null,
      },
    };
    const { subjects } = parse(JSON.stringify(review));
    const [s] = subjects;
    assert.equal(s?.type, 'review');
    assert.ok(s?.type === 'review');
    assert.equal(s.uid, 'u-1');
    assert.equal(s.input.operation, 'DELETE');
    assert.equal(s.input.userInfo.username, 'alice');
  });

  test("kustomize's own configuration is never an object for the cluster: skipped, not a problem", () => {
    const { subjects, problems } = parse(
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n---\n' +
        'apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\n---\n' +
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n',
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      subjects.map((s) => (s.type === 'manifest' ? s.gvk.kind : s.type)),
      ['ConfigMap'],
    );
  });

  test('what is not a Kubernetes object is a problem with file and line', () => {
    const { problems } = parse(
      'just a string\n---\nfoo: bar\n---\napiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest: {}\n',
    );
    assert.deepEqual(
      problems.map((p) => [p.file, p.line]),
      [
        ['f.yaml', 1],
        ['f.yaml', 3],
        ['f.yaml', 5],
      ],
    );
    assert.match(problems[0]?.message ?? '', /document 1 is not a Kubernetes object/);
    assert.match(problems[1]?.message ?? '', /apiVersion and kind missing/);
    assert.match(problems[2]?.message ?? '', /invalid AdmissionReview/);
  });
});
