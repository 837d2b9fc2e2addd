// Differential test of `validate --crd` against the real API server: a corpus of tricky custom resources (defaults,
// nulls, RE2-only patterns, int-or-string, unknown fields, list-map duplicates), each created with
// fieldValidation=Strict (dry run) and run through validate with the same CRD; the verdicts must agree one for one.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import type { KubeObject } from '../../../src/core/types.js';
import type { ValidateReport } from '../../../src/transports/validate/report.js';
import { cli } from '../../helpers/cli.js';
import { installCrds, readCrds } from '../../../testing/control-plane/crds.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import type { Scenario } from '../harness/suite.js';

/** The CRD the unit tests of `validate --crd` use: one of each structural-schema feature. */
const CRD_FILE = 'test/fixtures/validate-crd-widgets.yaml';
const NAMESPACE = 'default';

interface Case {
  /** What the case exercises. */
  title: string;
  spec: unknown;
  /** Top-level fields besides apiVersion, kind, metadata and spec. */
  extra?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** The API server's verdict, as observed: the corpus must keep cases on both sides of each behaviour. */
  allowed: boolean;
}

const CORPUS: readonly Case[] = [
  // Defaults are applied before `required` is checked (spec.mode is required and defaulted).
  { title: 'required field with a default, absent', spec: { size: 'small' }, allowed: true },
  { title: 'required field with a default, null', spec: { size: 'small', mode: null }, allowed: true },
  { title: 'defaulted field given a value outside its enum', spec: { size: 'small', mode: 'slow' }, allowed: false },
  { title: 'object defaulted from null, with a nested default', spec: { size: 'small', limits: null }, allowed: true },
  { title: 'nested field below its minimum', spec: { size: 'small', limits: { memory: 0 } }, allowed: false },
  { title: 'required field without a default, absent', spec: {}, allowed: false },
  // Nulls in fields that are not nullable are pruned; nullable ones are kept.
  { title: 'null list (not nullable)', spec: { size: 'small', tags: null }, allowed: true },
  { title: 'null list-map (not nullable)', spec: { size: 'small', hooks: null }, allowed: true },
  { title: 'null map value (not nullable)', spec: { size: 'small', labels: { a: null } }, allowed: true },
  { title: 'null in a nullable field with a pattern', spec: { size: 'small', owner: null }, allowed: true },
  { title: 'null in a required field without a default', spec: { size: null }, allowed: false },
  { title: 'null list item', spec: { size: 'small', tags: ['a', null] }, allowed: false },
  { title: 'null spec (required)', spec: null, allowed: false },
  // Patterns are RE2 (Go regexp): \z and [[:upper:]] have no JavaScript equivalent.
  { title: 'RE2-only pattern, matching', spec: { size: 'small', code: 'ABC' }, allowed: true },
  {
    title: 'RE2-only pattern, trailing newline (\\z is the very end)',
    spec: { size: 'small', code: 'ABC\n' },
    allowed: false,
  },
  { title: 'RE2-only pattern, lower case', spec: { size: 'small', code: 'abc' }, allowed: false },
  { title: 'ordinary pattern, not matching', spec: { size: 'small', owner: 'Nope' }, allowed: false },
  { title: 'inline flag (?i), matching', spec: { size: 'small', greeting: 'HeLLo' }, allowed: true },
  { title: 'inline flag (?i), not matching', spec: { size: 'small', greeting: 'bye' }, allowed: false },
  // The same syntax, another meaning: RE2's \S is ASCII, so a no-break space is not white space to it.
  {
    title: '\\S against a no-break space (white space to JavaScript, not to RE2)',
    spec: { size: 'small', word: 'a\u00a0b' },
    allowed: true,
  },
  { title: '\\S against an ASCII space', spec: { size: 'small', word: 'a b' }, allowed: false },
  // int-or-string.
  { title: 'int-or-string as integer', spec: { size: 'small', port: 8080 }, allowed: true },
  { title: 'int-or-string as string', spec: { size: 'small', port: 'http' }, allowed: true },
  { title: 'int-or-string as boolean', spec: { size: 'small', port: true }, allowed: false },
  { title: 'int-or-string as a fraction', spec: { size: 'small', port: 1.5 }, allowed: false },
  // Unknown fields, refused under fieldValidation=Strict; kept where unknown fields are preserved.
  { title: 'unknown field in spec', spec: { size: 'small', colour: 'red' }, allowed: false },
  {
    title: 'unknown field under x-kubernetes-preserve-unknown-fields',
    spec: { size: 'small', settings: { mode: 'x', anything: { goes: true } } },
    allowed: true,
  },
  {
    title: 'unknown field in an embedded resource',
    spec: { size: 'small', template: { apiVersion: 'v1', kind: 'Pod', extra: 1 } },
    allowed: false,
  },
  {
    title: 'embedded resource without apiVersion and kind',
    spec: { size: 'small', template: { spec: {} } },
    allowed: false,
  },
  { title: 'unknown top-level field', spec: { size: 'small' }, extra: { colour: 'red' }, allowed: false },
  // With the status subresource, create drops status after decoding: its values are not validated, but strict
  // decoding has already refused unknown fields in it.
  {
    title: 'status with an unknown field',
    spec: { size: 'small' },
    extra: { status: { phase: 'x', unknown: 1 } },
    allowed: false,
  },
  {
    title: 'status with a value of the wrong type',
    spec: { size: 'small' },
    extra: { status: { phase: 5 } },
    allowed: true,
  },
  { title: 'unknown field in metadata', spec: { size: 'small' }, metadata: { whatever: 1 }, allowed: false },
  { title: 'label value that is a number', spec: { size: 'small' }, metadata: { labels: { a: 1 } }, allowed: false },
  { title: 'null labels', spec: { size: 'small' }, metadata: { labels: null, annotations: { a: 'b' } }, allowed: true },
  {
    title: 'unknown field in an owner reference',
    spec: { size: 'small' },
    metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u', extra: 1 }] },
    allowed: false,
  },
  {
    title: "unknown field in an embedded resource's metadata",
    spec: { size: 'small', template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', whatever: 1 } } },
    allowed: false,
  },
  // List-type map and set: one item per key.
  {
    title: 'list-map with distinct keys',
    spec: { size: 'small', hooks: [{ name: 'one' }, { name: 'two', owner: 'a' }] },
    allowed: true,
  },
  {
    title: 'list-map with a duplicate key',
    spec: { size: 'small', hooks: [{ name: 'one' }, { name: 'one', owner: 'b' }] },
    allowed: false,
  },
  { title: 'list-set with a duplicate item', spec: { size: 'small', tags: ['a', 'a'] }, allowed: false },
  { title: 'list-map item without its key', spec: { size: 'small', hooks: [{ owner: 'b' }] }, allowed: false },
  // Types, bounds, formats.
  { title: 'integer given as a string', spec: { size: 'small', replicas: '3' }, allowed: false },
  { title: 'exclusive minimum (OpenAPI boolean form)', spec: { size: 'small', replicas: 0 }, allowed: false },
  { title: 'within bounds', spec: { size: 'small', replicas: 10 }, allowed: true },
  { title: 'date-time format', spec: { size: 'small', since: 'yesterday' }, allowed: false },
  { title: 'map of strings with a number', spec: { size: 'small', labels: { a: 1 } }, allowed: false },
];

function widget(c: Case, i: number): KubeObject {
  return {
    apiVersion: 'example.hookkeeper.io/v1',
    kind: 'Widget',
    metadata: { name: `differential-${i}`, namespace: NAMESPACE, ...c.metadata },
    spec: c.spec,
    ...c.extra,
  };
}

export const validateDifferentialScenarios: Scenario = (env) => {
  describe('validate --crd agrees with the API server (fieldValidation=Strict), case by case', () => {
    let crdFile = '';
    let manifests = '';

    before(async () => {
      const { plane } = env();
      crdFile = join(plane.repoRoot, CRD_FILE);
      await installCrds(
        plane.kubeConfig('admin'),
        plane.server,
        plane.caPem,
        plane.identities.admin.token,
        await readCrds([crdFile]),
      );
      const dir = join(plane.dir, 'validate-differential');
      mkdirSync(dir, { recursive: true });
      manifests = join(dir, 'corpus.json');
      // JSON, one document per case: exactly the bytes the API server gets, with no YAML reading in between.
      await writeFile(manifests, CORPUS.map((c, i) => JSON.stringify(widget(c, i))).join('\n---\n'));
    });

    test('every case: the same verdict from the API server and from validate', async () => {
      const { plane } = env();
      const run = await cli(['validate', '--output', 'json', '--crd', crdFile, manifests]);
      assert.ok(run.code === 0 || run.code === 1, `validate exited ${run.code}: ${run.stderr}`);
      const report = JSON.parse(run.stdout) as ValidateReport;
      assert.equal(report.results.length, CORPUS.length);

      const rows: string[] = [];
      for (const [i, c] of CORPUS.entries()) {
        const res = await rawRequest({
          url: `${plane.server}/apis/example.hookkeeper.io/v1/namespaces/${NAMESPACE}/widgets?dryRun=All&fieldValidation=Strict`,
          method: 'POST',
          ca: plane.caPem,
          token: plane.identities.admin.token,
          body: widget(c, i),
          timeoutMs: 30_000,
        });
        const server = res.status === 201;
        if (!server)
          assert.ok(
            res.status === 422 || res.status === 400,
            `case ${i} (${c.title}): HTTP ${res.status}: ${res.body}`,
          );
        const result = report.results[i];
        const offline = result?.allowed === true;
        const said = (result?.findings ?? []).map((f) => `${f.rule}: ${f.message}`).join('; ') || '(nothing)';
        const serverSaid = server ? '(created)' : ((JSON.parse(res.body) as { message?: string }).message ?? res.body);
        if (server !== offline || server !== c.allowed)
          rows.push(
            `case ${i} (${c.title}): expected ${c.allowed}, API server ${server} [${serverSaid}], validate ${offline} [${said}]`,
          );
      }
      assert.deepEqual(rows, [], `verdicts differ:\n${rows.join('\n')}`);
    });
  });
};
