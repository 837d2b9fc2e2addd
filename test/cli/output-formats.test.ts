// The --output formats of `validate` and `audit` are registries: the CLI accepts exactly their keys, and each format
// renders a small fixed report. A format added to a registry without a check below is a type error here.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { AUDIT_FORMATS, type AuditFormatName } from '../../src/transports/audit/formats.js';
import type { AuditReport } from '../../src/transports/audit/report.js';
import { VALIDATE_FORMATS, type ValidateFormat } from '../../src/transports/validate/formats.js';
import type { ValidateReport } from '../../src/transports/validate/report.js';
import { useFakeApiServer } from '../audit/fake-apiserver.js';
import { machine } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';

/** The choices a command's usage error lists for an unknown --output. */
async function listedChoices(args: string[], options: { cwd?: string } = {}): Promise<string[]> {
  const r = await cli(args, options);
  assert.equal(r.code, 2, r.stderr);
  const m = /--output: "no-such-format" is not an output format; give one of (.*)\n/.exec(r.stderr);
  assert.ok(m?.[1], r.stderr);
  return m[1].split(', ');
}

const VALIDATE_REPORT: ValidateReport = {
  apiVersion: 'hookkeeper.io/v1alpha1',
  kind: 'ValidateReport',
  userInfo: { username: 'hookkeeper-validate', groups: [] },
  summary: { objects: 1, allowed: 0, denied: 1, warnings: 0, patched: 0, deletions: 0 },
  results: [
    {
      file: 'machines.yaml',
      document: 1,
      line: 1,
      object: {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        namespace: 'openshift-machine-api',
        name: 'master-0',
      },
      operation: 'CREATE',
      source: 'manifest',
      allowed: false,
      findings: [
        {
          rule: 'hook-naming',
          severity: 'deny',
          path: 'spec.lifecycleHooks.preDrain[0].name',
          line: 9,
          message: 'name is too short',
          fix: 'use a longer name',
        },
      ],
      notices: [],
      patch: [],
      changes: [],
      notes: [],
    },
  ],
  deletions: [],
  notes: [],
  problems: [],
};

const AUDIT_REPORT: AuditReport = {
  apiVersion: 'hookkeeper.io/v1alpha1',
  kind: 'AuditReport',
  startedAt: '2026-01-02T03:04:05Z',
  finishedAt: '2026-01-02T03:04:06Z',
  stuckAfterSeconds: 1800,
  resources: [
    { resource: 'machines.machine.openshift.io', version: 'v1beta1', kind: 'Machine', status: 'audited', objects: 2 },
  ],
  notes: [],
  findings: [
    {
      rule: 'stuck-deletion',
      result: 'fail',
      object: {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        namespace: 'openshift-machine-api',
        name: 'master-0',
      },
      path: 'spec.lifecycleHooks.preDrain[0]',
      message: 'master-0 has been deleting for 2h',
      fix: 'ask the hook owner',
    },
  ],
  summary: { objects: 2, passed: 1, fail: 1, warn: 0, stuckDeletions: 1, orphanedHooks: 0 },
  passed: [
    {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      namespace: 'openshift-machine-api',
      name: 'master-1',
    },
  ],
};

const validateChecks: Record<ValidateFormat, (out: string) => void> = {
  text: (out) =>
    assert.equal(
      out,
      [
        'machines.yaml:1 (document 1): Machine.machine.openshift.io openshift-machine-api/master-0 [CREATE]: DENIED',
        '  deny hook-naming spec.lifecycleHooks.preDrain[0].name (line 9)',
        '    name is too short',
        '    fix: use a longer name',
        '1 object: 0 allowed, 1 denied, 0 warnings',
        '',
      ].join('\n'),
    ),
  json: (out) => assert.deepEqual(JSON.parse(out), VALIDATE_REPORT),
  yaml: (out) => assert.deepEqual(YAML.parse(out), VALIDATE_REPORT),
  junit: (out) => {
    assert.match(out, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
    assert.match(out, /<testsuite name="machines\.yaml" tests="1" failures="1"/);
    assert.match(
      out,
      /<failure [^>]*>[^<]*hook-naming spec\.lifecycleHooks\.preDrain\[0\]\.name \(line 9\): name is too short/,
    );
  },
  sarif: (out) => {
    const log = JSON.parse(out) as { version: string; runs: Array<{ results: unknown[] }> };
    assert.equal(log.version, '2.1.0');
    assert.deepEqual(log.runs[0]?.results[0], {
      ruleId: 'hook-naming',
      ruleIndex: 0,
      level: 'error',
      message: {
        text: 'Machine.machine.openshift.io openshift-machine-api/master-0 [CREATE]: name is too short\nfix: use a longer name',
      },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: 'machines.yaml' }, region: { startLine: 9 } },
          logicalLocations: [
            { fullyQualifiedName: 'Machine.machine.openshift.io openshift-machine-api/master-0', kind: 'object' },
          ],
        },
      ],
    });
  },
  github: (out) =>
    assert.equal(
      out,
      [
        '::error file=machines.yaml,line=9,title=hook-naming spec.lifecycleHooks.preDrain[0].name::Machine.machine.openshift.io openshift-machine-api/master-0 [CREATE]: name is too short%0Afix: use a longer name',
        '1 object: 0 allowed, 1 denied, 0 warnings',
        '',
      ].join('\n'),
    ),
};

const auditChecks: Record<AuditFormatName, (out: string) => void> = {
  text: (out) =>
    assert.match(
      out,
      /^fail stuck-deletion Machine\.machine\.openshift\.io openshift-machine-api\/master-0 spec\.lifecycleHooks\.preDrain\[0\]: master-0 has been deleting for 2h\n {2}fix: ask the hook owner\n/,
    ),
  json: (out) => assert.deepEqual(JSON.parse(out), AUDIT_REPORT),
  yaml: (out) => assert.deepEqual(YAML.parse(out), AUDIT_REPORT),
  policyreport: (out) => {
    const docs = YAML.parseAllDocuments(out).map((d) => d.toJS() as Record<string, unknown>);
    assert.deepEqual(
      docs.map((d) => [d['apiVersion'], d['kind']]),
      [['wgpolicyk8s.io/v1alpha2', 'PolicyReport']],
    );
    assert.deepEqual(docs[0]?.['summary'], { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 });
  },
  openreports: (out) => {
    const docs = YAML.parseAllDocuments(out).map((d) => d.toJS() as Record<string, unknown>);
    assert.deepEqual(
      docs.map((d) => [d['apiVersion'], d['kind'], d['source']]),
      [['openreports.io/v1alpha1', 'Report', 'hookkeeper']],
    );
    assert.deepEqual(docs[0]?.['summary'], { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 });
  },
};

describe('validate --output', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-formats-'));
    await writeFile(join(dir, 'm.yaml'), YAML.stringify(machine({ name: 'master-0' })));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('the CLI offers exactly the registry formats, in its order', async () => {
    assert.deepEqual(
      await listedChoices(['validate', '--output', 'no-such-format', 'm.yaml'], { cwd: dir }),
      Object.keys(VALIDATE_FORMATS),
    );
    const help = (await cli(['validate', '--help'])).stdout.replace(/\s+/g, ' ');
    assert.ok(
      help.includes(`--output <format> output format: ${Object.keys(VALIDATE_FORMATS).join(', ')} (default: "text")`),
      help,
    );
    for (const name of Object.keys(VALIDATE_FORMATS)) {
      const r = await cli(['validate', '--output', name, 'm.yaml'], { cwd: dir });
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      assert.notEqual(r.stdout, '', name);
    }
    assert.equal(
      (await cli(['validate', '--output', 'toString', 'm.yaml'], { cwd: dir })).code,
      2,
      'a prototype property is not a format',
    );
  });

  for (const name of Object.keys(validateChecks) as ValidateFormat[]) {
    test(`${name} renders a fixed report`, async () => {
      const render = await VALIDATE_FORMATS[name].load();
      validateChecks[name](render(VALIDATE_REPORT, { showPatches: false }));
    });
  }
});

describe('audit --output', () => {
  const fake = useFakeApiServer('hookkeeper-formats-');

  test('the CLI offers exactly the registry formats, in its order', async () => {
    fake.api.objects.set('machine.openshift.io/v1beta1/machines', [
      machine({ name: 'worker-0', namespace: 'team-a', role: 'worker' }),
    ]);
    assert.deepEqual(
      await listedChoices(['audit', '--kubeconfig', fake.kubeconfig, '--output', 'no-such-format']),
      Object.keys(AUDIT_FORMATS),
    );
    for (const name of Object.keys(AUDIT_FORMATS)) {
      const r = await cli(['audit', '--kubeconfig', fake.kubeconfig, '--output', name]);
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      assert.notEqual(r.stdout, '', name);
    }
  });

  test('the report formats record passes; text and json do not need them', () => {
    assert.deepEqual(
      Object.entries(AUDIT_FORMATS)
        .filter(([, f]) => f.recordsPasses)
        .map(([n]) => n),
      ['policyreport', 'openreports'],
    );
  });

  for (const name of Object.keys(auditChecks) as AuditFormatName[]) {
    test(`${name} renders a fixed report`, async () => {
      const render = await AUDIT_FORMATS[name].load();
      auditChecks[name](render(AUDIT_REPORT, { tty: false }));
    });
  }
});
