// The audit's report objects created in the real API server (server-side, fieldValidation=Strict, not a dry run)
// against the suite's report CRDs: upstream's OpenReports and wgpolicyk8s.io CRDs, or the trimmed copies in
// test/fixtures. What `audit --output policyreport|openreports` prints for a live namespace, and reports holding every
// field the builders write (a cluster-scoped report included), are accepted as written and read back unchanged, and a
// later audit's reports applied over them server-side replace their results.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { openReports } from '../../../src/transports/audit/openreports.js';
import { policyReports } from '../../../src/transports/audit/policyreport.js';
import type { AuditReport } from '../../../src/transports/audit/report.js';
import { openshiftMachine, type Hook } from '../../../testing/control-plane/machines.js';
import { cli } from '../../helpers/cli.js';
import type { ControlPlane } from '../../../testing/control-plane/control-plane.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import type { Scenario } from '../harness/suite.js';
import { metadataOf } from './helpers.js';

const NAMESPACE = 'reports-e2e';
/** Where the reports with every field go: the live namespace's reports already hold the name `hookkeeper`. */
const FIELDS_NAMESPACE = 'reports-e2e-fields';
const GATE_LABEL = 'e2e.hookkeeper.io/report-gate';
const DEPARTED: Hook = { name: 'e2e.hookkeeper.io/Recycle', owner: 'e2e.hookkeeper.io/departed-recycler' };

/** A missing default hook under warn enforcement (a warn result), and an owner whose only ServiceAccount is gone (a fail). */
const POLICY = `apiVersion: hookkeeper.io/v1alpha1
kind: Policy
enforcement: { default-hooks: warn }
owners:
  ${DEPARTED.owner}:
    serviceAccounts: [{ namespace: departed, name: recycler }]
defaultHooks:
  - name: reports-e2e-gate
    match:
      kinds: [{ group: machine.openshift.io, kind: Machine }]
      namespaces: [${NAMESPACE}]
      labelSelector: { matchLabels: { ${GATE_LABEL}: required } }
    stage: preDrain
    hook: { name: e2e.hookkeeper.io/ReportGate, owner: gate-team }
`;

interface Format {
  output: 'policyreport' | 'openreports';
  build: (report: AuditReport) => Array<Record<string, unknown>>;
  /** kind -> plural, as the CRDs name them. */
  plurals: Readonly<Record<string, string>>;
}

const FORMATS: readonly Format[] = [
  {
    output: 'policyreport',
    build: policyReports,
    plurals: { PolicyReport: 'policyreports', ClusterPolicyReport: 'clusterpolicyreports' },
  },
  { output: 'openreports', build: openReports, plurals: { Report: 'reports', ClusterReport: 'clusterreports' } },
];

type Doc = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
};

function collectionPath(format: Format, doc: Doc): string {
  const plural = format.plurals[doc.kind];
  assert.ok(plural, `${format.output} wrote an unexpected kind ${doc.kind}`);
  return `/apis/${doc.apiVersion}${doc.metadata.namespace ? `/namespaces/${doc.metadata.namespace}` : ''}/${plural}`;
}

/** POST as written, unknown fields refused rather than pruned; the API server's answer. */
function create(plane: ControlPlane, path: string, body: unknown): ReturnType<typeof rawRequest> {
  return rawRequest({
    url: `${plane.server}${path}?fieldValidation=Strict`,
    method: 'POST',
    ca: plane.caPem,
    token: plane.identities.admin.token,
    body,
    timeoutMs: 30_000,
  });
}

/** Creates each report, then reads it back: everything but the server-set metadata is as written. */
async function createAndReadBack(plane: ControlPlane, format: Format, docs: readonly Doc[]): Promise<void> {
  for (const doc of docs) {
    const path = collectionPath(format, doc);
    const created = await create(plane, path, doc);
    assert.equal(
      created.status,
      201,
      `${doc.kind} ${doc.metadata.namespace ?? ''}/${doc.metadata.name}: ${created.body}`,
    );
    const read = await rawRequest({
      url: `${plane.server}${path}/${doc.metadata.name}`,
      ca: plane.caPem,
      token: plane.identities.admin.token,
    });
    assert.equal(read.status, 200, read.body);
    const { metadata, ...stored } = JSON.parse(read.body) as Doc;
    const { metadata: written, ...sent } = doc;
    assert.deepEqual(stored, sent, `${doc.kind} read back as written (nothing pruned or defaulted)`);
    assert.deepEqual(
      [metadata.name, metadata.namespace, metadata.labels],
      [written.name, written.namespace, written.labels],
    );
  }
}

/** An audit's result with every field the report builders write: fail, warn and pass; namespaced and cluster-scoped. */
function everyField(): AuditReport {
  const machine = {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    namespace: FIELDS_NAMESPACE,
    name: 'held',
    uid: '0b6c8f3e-5d2a-4e71-9c48-3f1a7e2d6b95',
  };
  const thing = { apiVersion: 'example.io/v1', kind: 'Thing', name: 'global' };
  return {
    apiVersion: 'hookkeeper.io/v1alpha1',
    kind: 'AuditReport',
    startedAt: '2026-11-21T12:00:00.250Z',
    finishedAt: '2026-11-21T12:00:01.000Z',
    stuckAfterSeconds: 1800,
    resources: [],
    notes: [],
    findings: [
      {
        rule: 'stuck-deletion',
        result: 'fail',
        object: machine,
        path: 'spec.lifecycleHooks.preDrain[0]',
        message: 'Machine held has been deleting for 3h',
        fix: 'remove the hook',
        hook: { stage: 'preDrain', name: 'e2e.hookkeeper.io/Quiesce', owner: 'storage-team' },
        deletionTimestamp: '2026-11-21T09:00:00Z',
        deletingForSeconds: 10_800,
      },
      { rule: 'hook-naming', result: 'warn', object: thing, path: 'spec.x', message: 'spec.x: warned' },
    ],
    summary: { objects: 4, passed: 2, fail: 1, warn: 1, stuckDeletions: 1, orphanedHooks: 0 },
    passed: [
      { ...machine, name: 'clean' },
      { ...thing, name: 'tidy' },
    ],
  };
}

export const reportScenarios: Scenario = (env) => {
  describe('audit reports created in the API server under their CRDs', () => {
    let policyFile = '';
    let kubeconfig = '';

    before(async () => {
      const { plane, machines } = env();
      const core = plane.kubeConfig('admin').makeApiClient(CoreV1Api);
      for (const name of [NAMESPACE, FIELDS_NAMESPACE]) await core.createNamespace({ body: { metadata: { name } } });
      const dir = join(plane.dir, 'reports');
      mkdirSync(dir, { recursive: true });
      policyFile = join(dir, 'policy.yaml');
      await writeFile(policyFile, POLICY);
      kubeconfig = await plane.kubeConfigFile('hookkeeper');
      const controllers = machines('machineApi');
      const gated = openshiftMachine({ name: 'report-missing-gate', namespace: NAMESPACE });
      (metadataOf(gated)['labels'] as Record<string, string>)[GATE_LABEL] = 'required';
      await controllers.create(NAMESPACE, gated);
      await controllers.create(
        NAMESPACE,
        openshiftMachine({ name: 'report-orphaned', namespace: NAMESPACE, preTerminate: [DEPARTED] }),
      );
      await controllers.create(NAMESPACE, openshiftMachine({ name: 'report-clean', namespace: NAMESPACE }));
    });

    for (const format of FORMATS) {
      test(`--output ${format.output} of a live namespace: created as printed, fail, warn and pass results intact`, async () => {
        const run = await cli([
          'audit',
          '--kubeconfig',
          kubeconfig,
          '--config',
          policyFile,
          '-n',
          NAMESPACE,
          '--output',
          format.output,
        ]);
        assert.equal(run.code, 1, run.stderr);
        const docs = parseAllDocuments(run.stdout).map((d) => {
          assert.deepEqual(d.errors, []);
          return d.toJS() as Doc;
        });
        assert.deepEqual(
          docs.map((d) => [d.kind, d.metadata.namespace, d['summary']]),
          [[Object.keys(format.plurals)[0], NAMESPACE, { pass: 1, fail: 1, warn: 1, error: 0, skip: 0 }]],
        );
        const results = docs[0]?.['results'] as Array<{
          rule?: string;
          result: string;
          resources: Array<{ name: string; uid?: string }>;
        }>;
        assert.deepEqual(results.map((r) => [r.result, r.rule ?? '', r.resources[0]?.name]).sort(), [
          ['fail', 'orphaned-owner', 'report-orphaned'],
          ['pass', '', 'report-clean'],
          ['warn', 'default-hooks', 'report-missing-gate'],
        ]);
        assert.ok(
          results.every((r) => /^[0-9a-f-]{36}$/.test(r.resources[0]?.uid ?? '')),
          'each result names its Machine by uid',
        );
        await createAndReadBack(env().plane, format, docs);
      });

      test(`${format.output}: every field the builder writes, namespaced and cluster-scoped, is accepted and kept`, async () => {
        const docs = format.build(everyField()) as Doc[];
        assert.deepEqual(
          docs.map((d) => [d.kind, d.metadata.namespace]),
          Object.keys(format.plurals).map((k, i) => [k, i === 0 ? FIELDS_NAMESPACE : undefined]),
        );
        await createAndReadBack(env().plane, format, docs);
      });

      test(`${format.output}: applied again server-side (kubectl apply --server-side), a later audit's results replace the earlier`, async () => {
        const { plane } = env();
        const later = everyField();
        later.findings = later.findings.filter((f) => f.result === 'warn');
        later.passed = [];
        const docs = format.build(later) as Doc[];
        assert.ok(docs.length > 0);
        for (const doc of docs) {
          const url = `${plane.server}${collectionPath(format, doc)}/${doc.metadata.name}`;
          const applied = await rawRequest({
            url: `${url}?fieldManager=hookkeeper-audit&force=true&fieldValidation=Strict`,
            method: 'PATCH',
            ca: plane.caPem,
            token: plane.identities.admin.token,
            body: doc,
            contentType: 'application/apply-patch+yaml',
            timeoutMs: 30_000,
          });
          assert.equal(applied.status, 200, applied.body);
          const stored = JSON.parse(
            (await rawRequest({ url, ca: plane.caPem, token: plane.identities.admin.token })).body,
          ) as Doc;
          assert.deepEqual(
            [stored['summary'], stored['results']],
            [doc['summary'], doc['results']],
            `${doc.kind}: results as the later audit wrote them`,
          );
        }
      });

      test(`${format.output}: a field the CRD does not define is refused, not pruned (the check can fail)`, async () => {
        const [doc] = format.build(everyField()) as Doc[];
        assert.ok(doc);
        const results = doc['results'] as Array<Record<string, unknown>>;
        const extra = {
          ...doc,
          metadata: { ...doc.metadata, name: 'hookkeeper-extra-field' },
          results: [{ ...results[0], hookkeeperOnly: 'x' }],
        };
        const refused = await create(env().plane, collectionPath(format, doc), extra);
        assert.equal(refused.status, 400, refused.body);
        assert.match(
          (JSON.parse(refused.body) as { message?: string }).message ?? '',
          /strict decoding error: unknown field "results\[0\]\.hookkeeperOnly"/,
        );
      });
    }
  });
};
