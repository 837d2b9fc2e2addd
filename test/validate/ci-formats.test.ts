// The CI formats of a ValidateReport: SARIF 2.1.0, checked against the schema OASIS published (vendored in
// test/fixtures, see sarif-schema-2.1.0.source.txt), and GitHub Actions workflow commands, with their escaping.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { KubeObject } from '../../src/core/types.js';
import { AppError } from '../../src/errors.js';
import { escapeData, escapeProperty, renderGithub } from '../../src/transports/validate/github.js';
import { renderJunit } from '../../src/transports/validate/junit.js';
import { DEFAULT_USER, failedReport, type ValidateReport } from '../../src/transports/validate/report.js';
import { validateInputs } from '../../src/transports/validate/run.js';
import { fileUri, renderSarif, toSarif } from '../../src/transports/validate/sarif.js';
import { DUPLICATE_KEY } from '../../src/infrastructure/manifests/documents.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { parseXml } from './xml.js';

const yaml = (...objects: KubeObject[]): string => objects.map((o) => YAML.stringify(o)).join('---\n');
const options = { policy: DEFAULT_POLICY, userInfo: DEFAULT_USER };

/** RFC 3986 characters only (unreserved, reserved, percent-encoded), and resolvable against a base. */
function isUriReference(s: string): boolean {
  return /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})*$/.test(s) && URL.canParse(s, 'file:///base/');
}

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat('uri', (s: string) => isUriReference(s) && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s) && URL.canParse(s));
ajv.addFormat('uri-reference', isUriReference);
ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
const validSarif = ajv.compile(
  JSON.parse(readFileSync(new URL('../fixtures/sarif-schema-2.1.0.json', import.meta.url), 'utf8')) as object,
);

function assertValidSarif(text: string): void {
  const log: unknown = JSON.parse(text);
  assert.ok(validSarif(log), JSON.stringify(validSarif.errors, null, 2));
}

// A removal (old place), a bad hook name (new place), a warning, a stdin object, odd file names, a deletion.
const backup = { name: 'BackupFileSystem', owner: 'my-backup-controller' };
const oldText = yaml(machine({ name: 'm0', preDrain: [backup, ETCD] }), machine({ name: 'gone', preDrain: [ETCD] }));
const report = validateInputs(
  [
    { file: 'cp, 1:a%b.yaml', text: yaml(machine({ name: 'm0', preDrain: [backup] })) },
    {
      file: 'dir/wörk ers.yaml',
      text: yaml(machine({ name: 'w', role: 'worker', preDrain: [{ name: 'bad name', owner: 'x-team' }] })),
    },
    {
      file: '<stdin>',
      text: yaml(
        machine({ name: 'w2', role: 'worker', preDrain: [{ name: 'example.com/Backup', owner: 'backup-team' }] }),
      ),
    },
  ],
  [{ file: 'old/cp.yaml', text: oldText }],
  options,
);
const etcdOldLine = oldText.split('\n').findIndex((l) => l.includes('EtcdQuorumOperator')) + 1;

describe('--output sarif', () => {
  test('valid SARIF 2.1.0 for findings, notes, deletions, stdin and names that need percent-encoding', () => {
    assertValidSarif(renderSarif(report));
    // The check can fail: a level SARIF does not know, and a file path that is no URI reference, are refused.
    const log = toSarif(report);
    const result = log.runs[0]?.results[0];
    assert.ok(result);
    assert.ok(!validSarif({ ...log, runs: [{ ...log.runs[0], results: [{ ...result, level: 'deny' }] }] }));
    const location = { physicalLocation: { artifactLocation: { uri: 'a b.yaml' } } };
    assert.ok(!validSarif({ ...log, runs: [{ ...log.runs[0], results: [{ ...result, locations: [location] }] }] }));
  });

  test('a report stopped by an error, and one with unreadable inputs, are valid SARIF saying what failed', () => {
    const failed = failedReport(
      DEFAULT_USER,
      new AppError('INPUT_INVALID', 'cannot read the old manifests (--old)', {
        problems: [{ file: 'old/a.yaml', line: 3, message: 'Map keys must be unique' }],
      }),
    );
    assertValidSarif(renderSarif(failed));
    const [invocation] = toSarif(failed).runs[0]?.invocations ?? [];
    assert.equal(invocation?.executionSuccessful, false);
    assert.deepEqual(invocation?.toolExecutionNotifications[1], {
      level: 'error',
      message: { text: 'old/a.yaml:3: Map keys must be unique' },
      locations: [{ physicalLocation: { artifactLocation: { uri: 'old/a.yaml' }, region: { startLine: 3 } } }],
    });
    const partial = validateInputs(
      [
        { file: 'a.yaml', text: 'kind: [' },
        { file: 'b.yaml', text: yaml(machine()) },
      ],
      undefined,
      options,
    );
    assertValidSarif(renderSarif(partial));
    assert.equal(toSarif(partial).runs[0]?.invocations[0]?.executionSuccessful, false);
  });

  test('a removed hook is reported at the object that lost it, with the old file and line beside it', () => {
    const run = toSarif(report).runs[0];
    const removal = run?.results.find((r) => r.ruleId === 'owner-only-removal');
    assert.equal(removal?.level, 'error');
    assert.equal(removal?.locations[0]?.physicalLocation?.artifactLocation.uri, 'cp%2C%201%3Aa%25b.yaml');
    assert.equal(removal?.locations[0]?.physicalLocation?.region?.startLine, report.results[0]?.line);
    assert.deepEqual(removal?.relatedLocations, [
      {
        id: 1,
        physicalLocation: { artifactLocation: { uri: 'old/cp.yaml' }, region: { startLine: etcdOldLine } },
        message: { text: `the old version: old/cp.yaml:${etcdOldLine}` },
      },
    ]);
    assert.match(removal?.message.text ?? '', new RegExp(`\\(old: old/cp\\.yaml:${etcdOldLine}\\)`));
    assert.equal(run?.tool.driver.rules[removal?.ruleIndex ?? -1]?.id, 'owner-only-removal');
  });

  test('at --old-ref, the old place is a physical location under a base id naming the revision', () => {
    const atRef = validateInputs(
      [{ file: 'cp.yaml', text: yaml(machine({ name: 'm0', preDrain: [backup] })) }],
      [{ file: 'origin/main:old/cp.yaml', text: oldText }],
      { ...options, oldSource: 'at origin/main', oldRef: 'origin/main' },
    );
    const text = renderSarif(atRef);
    assertValidSarif(text);
    const run = toSarif(atRef).runs[0];
    const removal = run?.results.find((r) => r.ruleId === 'owner-only-removal');
    assert.deepEqual(removal?.relatedLocations, [
      {
        id: 1,
        physicalLocation: {
          artifactLocation: { uri: 'old/cp.yaml', uriBaseId: 'OLD_REF' },
          region: { startLine: etcdOldLine },
        },
        message: { text: `the old version: origin/main:old/cp.yaml:${etcdOldLine}` },
      },
    ]);
    // The base id is declared, saying which revision it stands for; a run without --old-ref declares none.
    assert.deepEqual(run?.originalUriBaseIds, {
      OLD_REF: { description: { text: 'the files at git revision origin/main (validate --old-ref)' } },
    });
    assert.equal(toSarif(report).runs[0]?.originalUriBaseIds, undefined);
  });

  test("the driver names hookkeeper's version and its home", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const chart = YAML.parse(readFileSync(new URL('../../charts/hookkeeper/Chart.yaml', import.meta.url), 'utf8')) as {
      home: string;
    };
    const driver = toSarif(report).runs[0]?.tool.driver;
    assert.equal(driver?.version, pkg.version);
    assert.equal(driver?.informationUri, chart.home);
  });

  test('a finding on stdin has no file to point at: its object is named instead', () => {
    const onStdin = toSarif(report).runs[0]?.results.find((r) => r.ruleId === 'capi-migration');
    assert.equal(onStdin?.level, 'warning');
    assert.deepEqual(onStdin?.locations, [
      {
        logicalLocations: [
          { fullyQualifiedName: 'Machine.machine.openshift.io openshift-machine-api/w2', kind: 'object' },
        ],
      },
    ]);
  });

  test('file URIs: "/" kept, everything else percent-encoded, never read as a scheme', () => {
    assert.equal(fileUri('a b/c:d,e%.yaml'), 'a%20b/c%3Ad%2Ce%25.yaml');
    assert.equal(fileUri('/abs/x.yaml'), '/abs/x.yaml');
    assert.ok(isUriReference(fileUri('dir/wörk ers.yaml')));
  });
});

describe('--output github', () => {
  test('escaping as the runner decodes it: %, CR and LF in messages; also : and , in properties', () => {
    assert.equal(escapeData('50% done\r\nnext: a, b'), '50%25 done%0D%0Anext: a, b');
    assert.equal(escapeProperty('a:b,c%\n'), 'a%3Ab%2Cc%25%0A');
  });

  test('one command per finding, at the new file and line; a removal at its object, with the old place', () => {
    const lines = renderGithub(report, { showPatches: false }).trimEnd().split('\n');
    const removal = lines.find((l) => l.includes('owner-only-removal'));
    assert.equal(
      removal?.slice(0, removal.indexOf('::', 2)),
      `::error file=cp%2C 1%3Aa%25b.yaml,line=${report.results[0]?.line},title=owner-only-removal spec.lifecycleHooks.preDrain[1]`,
    );
    assert.match(removal ?? '', new RegExp(`\\(old: old/cp\\.yaml:${etcdOldLine}\\)%0Afix: `));
    const naming = lines.find((l) => l.includes('hook-naming'));
    const namingLine = report.results[1]?.findings.find((f) => f.rule === 'hook-naming')?.line;
    assert.ok(naming?.startsWith(`::error file=dir/wörk ers.yaml,line=${namingLine},title=hook-naming `), naming);
    // stdin: no file to annotate, so the annotation has none.
    assert.ok(
      lines.some((l) => l.startsWith('::warning title=capi-migration ')),
      lines.join('\n'),
    );
    assert.ok(lines.some((l) => l.startsWith('::notice title=hookkeeper validate::')));
    assert.equal(lines.at(-1), '3 objects: 1 allowed, 2 denied, 1 warning; 1 deletion');
    for (const l of lines.slice(0, -1)) assert.match(l, /^::(error|warning|notice) [^\r\n]*$/);
  });

  test('input problems are error annotations at their file and line', () => {
    const partial = validateInputs([{ file: 'a.yaml', text: 'x: 1\nx: 2\n' }], undefined, options);
    assert.equal(
      renderGithub(partial, { showPatches: false }).split('\n')[0],
      `::error file=a.yaml,line=2,title=hookkeeper validate%3A input error::a.yaml:2: ${DUPLICATE_KEY}`,
    );
  });
});

describe('--output junit', () => {
  test('input problems are JUnit errors, beside the other results', () => {
    const partial: ValidateReport = validateInputs(
      [
        { file: 'a.yaml', text: 'kind: [' },
        { file: 'b.yaml', text: yaml(machine()) },
      ],
      undefined,
      options,
    );
    const xml = renderJunit(partial, { showPatches: false });
    parseXml(xml);
    assert.match(xml, /<testsuites name="hookkeeper validate" tests="2" failures="0" errors="1" skipped="0">/);
    assert.match(xml, /<testsuite name="a\.yaml" tests="1" failures="0" errors="1" skipped="0">/);
    assert.match(xml, /<error type="input" message="a\.yaml:1: [^"]+">/);
    assert.match(xml, /<testsuite name="b\.yaml" tests="1"/);
  });
});
