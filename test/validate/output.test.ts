// The text and JUnit renderings of a ValidateReport.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { escapeXml } from '../../src/infrastructure/junit.js';
import { renderJunit } from '../../src/transports/validate/junit.js';
import { DEFAULT_USER } from '../../src/transports/validate/report.js';
import { validateInputs } from '../../src/transports/validate/run.js';
import { renderText } from '../../src/transports/validate/text.js';
import { capiMachine, PRE_DRAIN } from '../fixtures/capi.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { parseXml } from './xml.js';

const text = [
  machine({ name: 'master-0' }),
  machine({ name: 'worker-<0>', role: 'worker', preDrain: [{ name: 'bad & "quoted"', owner: 'someone' }] }),
  machine({ name: 'worker-1', role: 'worker', preDrain: [{ name: 'example.com/Backup', owner: 'backup-controller' }] }),
]
  .map((o) => YAML.stringify(o))
  .join('---\n');
const old = YAML.stringify(machine({ name: 'retired', preDrain: [ETCD] }));
const report = validateInputs([{ file: 'm.yaml', text }], [{ file: 'old.yaml', text: old }], {
  policy: DEFAULT_POLICY,
  userInfo: DEFAULT_USER,
});

describe('text output', () => {
  test('objects with something to say, each finding with rule, path, line, message and fix; then a summary', () => {
    const out = renderText(report, { showPatches: false });
    const lines = out.trimEnd().split('\n');
    // Old manifests were given: each object judged as a CREATE says no old version was found, so it is shown.
    assert.deepEqual(lines.slice(0, 2), [
      'm.yaml:1 (document 1): Machine.machine.openshift.io openshift-machine-api/master-0 [CREATE]: allowed, patched',
      '  note: no old version of Machine.machine.openshift.io openshift-machine-api/master-0 was found in the old manifests: judged as a CREATE',
    ]);
    lines.splice(0, 2);
    assert.match(
      lines[0] ?? '',
      /^m\.yaml:\d+ \(document 2\): Machine\.machine\.openshift\.io openshift-machine-api\/worker-<0> \[CREATE\]: DENIED$/,
    );
    assert.match(lines[1] ?? '', /^ {2}deny hook-naming spec\.lifecycleHooks\.preDrain\[0\]\.name \(line \d+\)$/);
    assert.match(
      lines[2] ?? '',
      /^ {4}spec\.lifecycleHooks\.preDrain\[0\]\.name: Invalid value: "bad & \\"quoted\\"": .* should match/,
    );
    assert.match(lines[3] ?? '', /^ {4}fix: give hook/);
    assert.ok(out.includes('warn capi-migration spec.lifecycleHooks.preDrain[0].name'));
    assert.ok(!out.includes('patch:'), 'patches are shown with --show-patches only');
    assert.match(
      out,
      /old\.yaml:\d+ \(document 1\): Machine\.machine\.openshift\.io openshift-machine-api\/retired \[DELETE\]: deleted from the manifests: informational/,
    );
    assert.equal(
      lines.at(-1),
      '3 objects: 2 allowed (1 patched: see them with --show-patches), 1 denied, 1 warning; 1 deletion',
    );
  });

  test('a kind two API groups share (Machine, MachineSet) is named with its group; a kind of one group is not', () => {
    const both = validateInputs(
      [
        {
          file: 'm.yaml',
          text: [
            machine({ name: 'w', role: 'worker', preDrain: [{ name: 'bad name', owner: 'x' }] }),
            capiMachine({ name: 'w', role: 'worker', annotations: { [`${PRE_DRAIN}/bad name`]: 'x' } }),
            {
              apiVersion: 'machine.openshift.io/v1',
              kind: 'ControlPlaneMachineSet',
              metadata: { name: 'cluster', namespace: 'openshift-machine-api' },
              spec: {
                template: {
                  machines_v1beta1_machine_openshift_io: {
                    spec: { lifecycleHooks: { preDrain: [{ name: 'bad name', owner: 'x' }] } },
                  },
                },
              },
            },
          ]
            .map((o) => YAML.stringify(o))
            .join('---\n'),
        },
      ],
      undefined,
      { policy: DEFAULT_POLICY, userInfo: DEFAULT_USER },
    );
    const heads = renderText(both, { showPatches: false })
      .split('\n')
      .filter((l) => l.startsWith('m.yaml:'))
      .map((l) => l.replace(/^m\.yaml:\d+ \(document \d+\): /, '').replace(/ \[CREATE\].*$/, ''));
    assert.deepEqual(heads, [
      'Machine.machine.openshift.io openshift-machine-api/w',
      'Machine.cluster.x-k8s.io default/w',
      'ControlPlaneMachineSet openshift-machine-api/cluster',
    ]);
  });

  test('--show-patches adds the JSON Patch and the change in words', () => {
    const out = renderText(report, { showPatches: true });
    assert.match(
      out,
      /Machine\.machine\.openshift\.io openshift-machine-api\/master-0 \[CREATE\]: allowed, patched\n {2}note: no old version[^\n]*\n {2}patch: \[\{"op":"add","path":"\/spec\/lifecycleHooks\/preDrain","value":\[\{"name":"EtcdQuorumOperator","owner":"clusteroperator\/etcd"\}\]\}\]\n {2}change: etcd-quorum-protection: added preDrain hook "EtcdQuorumOperator"/,
    );
  });
});

describe('JUnit output', () => {
  test('escapes the five XML specials and replaces characters XML cannot carry', () => {
    assert.equal(escapeXml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
    assert.equal(escapeXml('bell\u0007 lone\uD800 ok\u00e9\u{1F600}'), 'bell\uFFFD lone\uFFFD ok\u00e9\u{1F600}');
  });

  test('the test reader refuses malformed XML, so the assertions below also check well-formedness', () => {
    assert.throws(() => parseXml('<a><b></a>'), /unbalanced/);
    assert.throws(() => parseXml('<a>x & y</a>'), /unescaped/);
    assert.throws(() => parseXml('<a t="<">x</a>'), /malformed/);
    assert.equal(parseXml('<a t="&quot;">&lt;</a>').text, '<');
  });

  test('one testcase per object and deletion, grouped by file; denials are failures; well-formed XML', () => {
    const xml = parseXml(renderJunit(report, { showPatches: true }));
    assert.equal(xml.name, 'testsuites');
    assert.deepEqual([xml.attrs['tests'], xml.attrs['failures']], ['4', '1']);
    const [suite, oldSuite] = xml.children;
    assert.deepEqual([suite?.attrs['name'], suite?.attrs['tests'], suite?.attrs['failures']], ['m.yaml', '3', '1']);
    assert.deepEqual(
      [oldSuite?.attrs['name'], oldSuite?.attrs['tests'], oldSuite?.attrs['failures']],
      ['old.yaml', '1', '0'],
    );
    const cases = suite?.children ?? [];
    assert.ok(cases.every((c) => c.name === 'testcase' && c.attrs['classname'] === 'm.yaml'));
    assert.match(
      cases[1]?.attrs['name'] ?? '',
      /^document 2 \(line \d+\): Machine\.machine\.openshift\.io openshift-machine-api\/worker-<0> \[CREATE\]$/,
    );
    const failure = cases[1]?.children.find((c) => c.name === 'failure');
    assert.equal(failure?.attrs['type'], 'hook-naming');
    assert.match(failure?.attrs['message'] ?? '', /Invalid value: "bad & \\"quoted\\""/);
    assert.match(failure?.text ?? '', /fix: give hook "bad & \\"quoted\\""/);
    assert.equal(
      cases[0]?.children.find((c) => c.name === 'failure'),
      undefined,
    );
    assert.match(
      cases[0]?.children.find((c) => c.name === 'system-out')?.text ?? '',
      /^note: no old version of Machine\.machine\.openshift\.io openshift-machine-api\/master-0 was found in the old manifests: judged as a CREATE\npatch: \[\{"op":"add"/,
    );
    assert.match(cases[2]?.children.find((c) => c.name === 'system-out')?.text ?? '', /^warning: capi-migration/);
    assert.match(oldSuite?.children[0]?.children[0]?.text ?? '', /deleted from the manifests/);
  });
});
