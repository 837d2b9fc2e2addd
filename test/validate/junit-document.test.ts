// One whole `validate -o junit` document, byte for byte: every element the writer can emit (error, failure with
// several denials, system-out with warnings, notices, notes and the patch, a deletion, a problem with no file).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderJunit } from '../../src/transports/validate/junit.js';
import type { Finding, ValidateReport } from '../../src/transports/validate/report.js';
import { parseXml } from './xml.js';

const machine = (name: string) => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  namespace: 'openshift-machine-api',
  name,
});
const deny = (f: Partial<Finding>): Finding => ({
  rule: 'hook-naming',
  severity: 'deny',
  path: 'spec.lifecycleHooks.preDrain[0].name',
  message: 'm',
  ...f,
});

const report: ValidateReport = {
  apiVersion: 'hookkeeper.io/v1alpha1',
  kind: 'ValidateReport',
  userInfo: { username: 'u', groups: [] },
  summary: { objects: 3, allowed: 2, denied: 1, warnings: 1, patched: 1, deletions: 1 },
  results: [
    {
      file: 'a & b.yaml',
      document: 1,
      line: 1,
      object: machine('<m0>'),
      operation: 'UPDATE',
      source: 'manifest',
      allowed: false,
      findings: [
        deny({ line: 7, message: 'hook name "bad name" is "not" valid', fix: 'rename it' }),
        deny({ rule: 'owner-only-removal', old: { file: 'main:a.yaml', line: 9 }, message: "may not remove 'X'" }),
        { rule: 'hook-owner', severity: 'warn', path: 'spec', message: 'owner <unknown>' },
      ],
      notices: ['break-glass removal by admin'],
      patch: [{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [{ name: 'A', owner: 'b' }] }],
      changes: ['added preDrain hook "A"'],
      notes: ['no old version\u0007'],
    },
    {
      file: 'a & b.yaml',
      document: 2,
      item: 0,
      line: 12,
      object: { apiVersion: 'v1', kind: 'ConfigMap' },
      operation: 'CREATE',
      source: 'manifest',
      allowed: true,
      findings: [],
      notices: [],
      patch: [],
      changes: [],
      notes: [],
    },
  ],
  deletions: [
    {
      file: 'old.yaml',
      document: 3,
      line: 20,
      object: machine('gone'),
      allowed: true,
      findings: [{ rule: 'hook-owner', severity: 'warn', path: 'spec', line: 21, message: 'w' }],
    },
  ],
  notes: [],
  problems: [
    { file: 'a & b.yaml', line: 30, path: 'spec', message: 'Map keys must be unique' },
    { message: 'no objects "found"' },
  ],
};

const EXPECTED = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="hookkeeper validate" tests="5" failures="1" errors="2" skipped="0">
  <testsuite name="a &amp; b.yaml" tests="3" failures="1" errors="1" skipped="0">
    <testcase classname="a &amp; b.yaml" name="document 1 (line 1): Machine.machine.openshift.io openshift-machine-api/&lt;m0&gt; [UPDATE]">
      <failure type="hook-naming" message="hook name &quot;bad name&quot; is &quot;not&quot; valid">hook-naming spec.lifecycleHooks.preDrain[0].name (line 7): hook name &quot;bad name&quot; is &quot;not&quot; valid
fix: rename it

owner-only-removal spec.lifecycleHooks.preDrain[0].name (old: main:a.yaml:9): may not remove &apos;X&apos;</failure>
      <system-out>warning: hook-owner spec: owner &lt;unknown&gt;
notice: break-glass removal by admin
note: no old version\uFFFD
patch: [{&quot;op&quot;:&quot;add&quot;,&quot;path&quot;:&quot;/spec/lifecycleHooks/preDrain&quot;,&quot;value&quot;:[{&quot;name&quot;:&quot;A&quot;,&quot;owner&quot;:&quot;b&quot;}]}]
change: added preDrain hook &quot;A&quot;</system-out>
    </testcase>
    <testcase classname="a &amp; b.yaml" name="document 2 item 0 (line 12): ConfigMap (generated name) [CREATE]"/>
    <testcase classname="a &amp; b.yaml" name="line 30: input">
      <error type="input" message="a &amp; b.yaml:30 spec: Map keys must be unique">a &amp; b.yaml:30 spec: Map keys must be unique</error>
    </testcase>
  </testsuite>
  <testsuite name="old.yaml" tests="1" failures="0" errors="0" skipped="0">
    <testcase classname="old.yaml" name="document 3 (line 20): Machine.machine.openshift.io openshift-machine-api/gone [DELETE]">
      <system-out>deleted from the manifests: informational (deleting a manifest removes no hook)
warning: hook-owner spec (line 21): w</system-out>
    </testcase>
  </testsuite>
  <testsuite name="hookkeeper validate" tests="1" failures="0" errors="1" skipped="0">
    <testcase classname="hookkeeper validate" name="input">
      <error type="input" message="no objects &quot;found&quot;">no objects &quot;found&quot;</error>
    </testcase>
  </testsuite>
</testsuites>
`;

test('validate -o junit: a whole document, byte for byte', () => {
  const xml = renderJunit(report, { showPatches: true });
  parseXml(xml);
  assert.equal(xml, EXPECTED);
});
