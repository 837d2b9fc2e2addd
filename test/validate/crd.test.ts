// `validate --crd`: objects checked against a CRD's structural schema with the API server's semantics and wording.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../src/core/types.js';
import { AppError } from '../../src/errors.js';
import { CrdSet } from '../../src/transports/validate/crd.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';
import { machine, ETCD } from '../fixtures/openshift.js';

const WIDGETS = new URL('../fixtures/validate-crd-widgets.yaml', import.meta.url);
const widgets = CrdSet.parse([{ file: 'widgets.yaml', text: readFileSync(WIDGETS, 'utf8') }]);
const V1 = { group: 'example.hookkeeper.io', version: 'v1', kind: 'Widget' };

function widget(spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'example.hookkeeper.io/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'ns', labels: { any: 'thing' }, managedFields: [] },
    spec,
    ...extra,
  };
}

const messages = (o: KubeObject, gvk = V1): string[] => widgets.validate(gvk, o).map((f) => f.message);

describe('CRD schema: the small test CRD', () => {
  test('a valid object has no findings; status values are not validated with the subresource', () => {
    const o = widget(
      {
        size: 'small',
        port: 'http',
        replicas: 3,
        owner: null,
        since: '2026-11-20T08:14:02Z',
        hooks: [{ name: 'one', owner: 'a' }, { name: 'two' }],
        tags: ['a', 'b'],
        settings: { mode: 'x', anything: { goes: true } },
        labels: { a: 'b' },
        template: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p', labels: { a: 'b' } },
          spec: { containers: [] },
        },
        rules: ['r1'],
      },
      { status: { phase: 5 } },
    );
    assert.deepEqual(widgets.validate(V1, o), []);
    assert.deepEqual(messages(widget({ size: 'large', port: 8080 })), []);
  });

  test("unknown fields in metadata (an embedded resource's too) and in status are refused, as strict decoding refuses them", () => {
    const o = widget(
      { size: 'small', template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', whatever: 1 } } },
      { status: { phase: 'Running', unknownStatusField: 1 } },
    );
    (o['metadata'] as Record<string, unknown>)['clusterName'] = 'x';
    assert.deepEqual(messages(o), [
      'strict decoding error: unknown field "metadata.clusterName"',
      'strict decoding error: unknown field "spec.template.metadata.whatever"',
      'strict decoding error: unknown field "status.unknownStatusField"',
    ]);
  });

  test("required fields, unknown fields, enums, patterns: in the API server's words", () => {
    assert.deepEqual(messages({ apiVersion: 'example.hookkeeper.io/v1', kind: 'Widget', metadata: { name: 'w' } }), [
      'spec: Required value',
    ]);
    assert.deepEqual(messages(widget({ size: 'huge', colour: 'red', owner: 'Nope' })), [
      'strict decoding error: unknown field "spec.colour"',
      'spec.size: Unsupported value: "huge": supported values: "small", "medium", "large"',
      'spec.owner: Invalid value: "Nope": spec.owner in body should match \'^[a-z]+/[a-z]+$\'',
    ]);
  });

  test('types, int-or-string, nullable, numeric bounds (OpenAPI boolean exclusiveMinimum) and formats', () => {
    assert.deepEqual(
      messages(widget({ size: 'small', port: true, replicas: 0, since: 'yesterday', labels: { a: 1 } })),
      [
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer-or-string: "boolean"',
        'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than 0',
        'spec.since: Invalid value: "yesterday": spec.since in body must be of type date-time: "yesterday"',
        'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
      ],
    );
    assert.deepEqual(messages(widget({ size: 'small', replicas: 11, tags: null })), [
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    ]);
  });

  test('null in a field that is not nullable is dropped, as the API server prunes it: absent, so Required when required', () => {
    assert.deepEqual(
      messages(widget({ size: 'small', tags: null, hooks: null, labels: { a: null }, owner: null })),
      [],
    );
    assert.deepEqual(messages(widget({ size: null })), ['spec.size: Required value']);
    assert.deepEqual(
      messages({ apiVersion: 'example.hookkeeper.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec: null }),
      ['spec: Required value'],
    );
    // Inside a list, an item cannot be dropped: null stays, and is the wrong type.
    assert.deepEqual(messages(widget({ size: 'small', tags: ['a', null] })), [
      'spec.tags[1]: Invalid value: "null": spec.tags[1] in body must be of type string: "null"',
    ]);
  });

  test("schema defaults are applied before required is checked, nested defaults included; the caller's object is untouched", () => {
    const o = widget({ size: 'small' });
    assert.deepEqual(messages(o), []);
    assert.deepEqual(o['spec'], { size: 'small' });
    assert.deepEqual(messages(widget({ size: 'small', mode: null })), []);
    assert.deepEqual(messages(widget({ size: 'small', mode: 'slow' })), [
      'spec.mode: Unsupported value: "slow": supported values: "standard", "fast"',
    ]);
    assert.deepEqual(messages(widget({ size: 'small', limits: { memory: 0 } })), [
      'spec.limits.memory: Invalid value: 0: spec.limits.memory in body should be greater than or equal to 1',
    ]);
  });

  test('pattern is evaluated with RE2 semantics, as the API server (Go regexp) evaluates it', () => {
    assert.deepEqual(messages(widget({ size: 'small', code: 'ABC' })), []);
    assert.deepEqual(messages(widget({ size: 'small', code: 'ABC\n' })), [
      'spec.code: Invalid value: "ABC\\n": spec.code in body should match \'^[[:upper:]]+\\z\'',
    ]);
    assert.deepEqual(messages(widget({ size: 'small', code: 'abc' })).length, 1);
    // (?i) has no JavaScript form; RE2's \S is ASCII, so a no-break space is not white space to it.
    assert.deepEqual(messages(widget({ size: 'small', greeting: 'HeLLo', word: 'a\u00a0b' })), []);
    assert.deepEqual(
      messages(widget({ size: 'small', greeting: 'bye', word: 'a b' })).map((f) => f.split(':')[0]),
      ['spec.word', 'spec.greeting'],
    );
  });

  test('x-kubernetes-list-type map and set: one item per key', () => {
    const findings = widgets.validate(
      V1,
      widget({
        size: 'small',
        hooks: [{ name: 'one' }, { name: 'two' }, { name: 'one', owner: 'b' }],
        tags: ['a', 'b', 'a'],
      }),
    );
    assert.deepEqual(
      findings.map((f) => [f.path, f.message, f.keys]),
      [
        ['spec.hooks[2]', 'spec.hooks[2]: Duplicate value: {"name":"one"}', ['spec', 'hooks', 2]],
        ['spec.tags[2]', 'spec.tags[2]: Duplicate value: "a"', ['spec', 'tags', 2]],
      ],
    );
    assert.deepEqual(
      messages(widget({ size: 'small', hooks: [{ name: 'ab' }, { name: 'bbb' }, { name: 'ccc' }, { name: 'ddd' }] })),
      [
        'spec.hooks: Too many: 4: must have at most 3 items',
        'spec.hooks[0].name: Invalid value: "ab": spec.hooks[0].name in body should be at least 3 chars long',
      ],
    );
  });

  test('x-kubernetes-embedded-resource: apiVersion and kind are required, metadata is an ObjectMeta', () => {
    assert.deepEqual(
      messages(widget({ size: 'small', template: { metadata: { name: 'x', labels: { a: 'b' } }, spec: {} } })),
      ['spec.template.apiVersion: Required value', 'spec.template.kind: Required value'],
    );
    assert.deepEqual(messages(widget({ size: 'small', template: { apiVersion: 'v1', kind: 'Pod', extra: 1 } })), [
      'strict decoding error: unknown field "spec.template.extra"',
    ]);
  });

  test('a version the CRD does not serve: the API server\'s "no matches for kind"', () => {
    const [f] = widgets.validate({ ...V1, version: 'v1alpha1' }, widget({ size: 'small' }));
    assert.equal(f?.message, 'no matches for kind "Widget" in version "example.hookkeeper.io/v1alpha1"');
    assert.equal(f?.fix, 'use a version widgets.example.hookkeeper.io serves: example.hookkeeper.io/v1');
    assert.equal(widgets.validate({ ...V1, version: 'v2' }, widget({ size: 'small' })).length, 1);
  });

  test('kinds no given CRD defines are not checked; CEL rules are noted, not evaluated', () => {
    assert.deepEqual(widgets.validate({ group: 'apps', version: 'v1', kind: 'Deployment' }, { spec: 'anything' }), []);
    assert.deepEqual(widgets.notes, [
      'widgets.example.hookkeeper.io v1: 1 x-kubernetes-validations (CEL) rule(s) not checked; the API server will evaluate them',
    ]);
  });

  test('a pattern neither RE2 nor JavaScript can compile is a note naming the field, not an abort; the rest is checked', () => {
    const crd = (pattern: string): string =>
      [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata: {name: gadgets.example.hookkeeper.io}',
        'spec:',
        '  group: example.hookkeeper.io',
        '  names: {kind: Gadget, plural: gadgets}',
        '  scope: Namespaced',
        '  versions:',
        '    - name: v1',
        '      served: true',
        '      storage: true',
        '      schema:',
        '        openAPIV3Schema:',
        '          type: object',
        '          properties:',
        '            spec:',
        '              type: object',
        '              properties:',
        `                name: {type: string, pattern: ${JSON.stringify(pattern)}}`,
        '                size: {type: integer}',
      ].join('\n');
    const gvk = { group: 'example.hookkeeper.io', version: 'v1', kind: 'Gadget' };
    const gadget = (spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'example.hookkeeper.io/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec,
    });
    const broken = CrdSet.parse([{ file: 'gadgets.yaml', text: crd('a{2,1}(') }]);
    assert.deepEqual(
      broken.validate(gvk, gadget({ name: 'anything', size: 'x' })).map((f) => f.message),
      ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"'],
    );
    assert.equal(broken.notes.length, 1);
    assert.match(
      broken.notes[0] ?? '',
      /^gadgets\.example\.hookkeeper\.io v1: spec\.name: pattern "a\{2,1\}\(" not checked: it compiles neither as RE2 .* nor as a JavaScript/,
    );
    // JavaScript-only syntax (lookahead): the API server refuses such a CRD; validate checks it the JavaScript way, and says so.
    const lookahead = CrdSet.parse([{ file: 'gadgets.yaml', text: crd('^(?=a)[a-z]+$') }]);
    assert.deepEqual(lookahead.validate(gvk, gadget({ name: 'abc' })), []);
    assert.equal(lookahead.validate(gvk, gadget({ name: 'bcd' })).length, 1);
    assert.match(lookahead.notes[0] ?? '', /spec\.name: pattern "\^\(\?=a\)\[a-z\]\+\$" is not RE2 syntax/);
  });

  test('a --crd file without a CRD, or a CRD given twice, is a usage error', () => {
    assert.throws(
      () => CrdSet.parse([{ file: 'x.yaml', text: 'apiVersion: v1\nkind: ConfigMap\n' }]),
      (e: unknown) => e instanceof AppError && e.code === 'USAGE' && /no apiextensions/.test(e.message),
    );
    const text = readFileSync(WIDGETS, 'utf8');
    assert.throws(
      () =>
        CrdSet.parse([
          { file: 'a.yaml', text },
          { file: 'b.yaml', text },
        ]),
      /defined twice \(a\.yaml and b\.yaml\)/,
    );
  });
});

// Where the e2e suite finds them (HOOKKEEPER_E2E_SHARED_CRDS), and like it, CI=true fails without them.
const settings = readControlPlaneSettings();
const SHARED = settings.sharedCrdDir;
const shared = existsSync(SHARED);

describe(
  'CRD schema: the real CRDs in ../shared/crds',
  { skip: shared || settings.ci ? false : `${SHARED} does not exist` },
  () => {
    if (!shared) {
      test('the upstream CRDs are present', () =>
        assert.fail(`${SHARED} does not exist (set HOOKKEEPER_E2E_SHARED_CRDS)`));
      return;
    }
    const read = (f: string): { file: string; text: string } => ({
      file: f,
      text: readFileSync(join(SHARED, f), 'utf8'),
    });
    const crds = CrdSet.parse([
      read('0000_10_machine-api_01_machines-Default.crd.yaml'),
      read('0000_10_machine-api_01_machinesets-Default.crd.yaml'),
      read('cluster-api-v1.10.10/cluster.x-k8s.io_machines.yaml'),
    ]);
    const MACHINE = { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' };

    test('a Machine as the API server stores it is valid (status ignored, providerSpec.value preserved)', () => {
      assert.deepEqual(crds.validate(MACHINE, machine({ preDrain: [ETCD] })), []);
    });

    test('openshift/api lifecycle hooks: duplicate names, short owners, a misspelt field', () => {
      const m = machine({ preDrain: [ETCD, { name: 'EtcdQuorumOperator', owner: 'me' }] });
      (m['spec'] as Record<string, unknown>)['lifecycleHook'] = {};
      assert.deepEqual(
        crds.validate(MACHINE, m).map((f) => f.message),
        [
          'strict decoding error: unknown field "spec.lifecycleHook"',
          'spec.lifecycleHooks.preDrain[1].owner: Invalid value: "me": spec.lifecycleHooks.preDrain[1].owner in body should be at least 3 chars long',
          'spec.lifecycleHooks.preDrain[1]: Duplicate value: {"name":"EtcdQuorumOperator"}',
        ],
      );
    });

    test('Cluster API v1beta1 Machine: required references', () => {
      const capi = {
        apiVersion: 'cluster.x-k8s.io/v1beta1',
        kind: 'Machine',
        metadata: { name: 'm', namespace: 'ns' },
        spec: { clusterName: 'c', bootstrap: { dataSecretName: 's' } },
      };
      assert.deepEqual(
        crds.validate({ group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Machine' }, capi).map((f) => f.message),
        ['spec.infrastructureRef: Required value'],
      );
    });
  },
);
