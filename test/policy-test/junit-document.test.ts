// One whole `hookkeeper test -o junit` document, byte for byte: a passing case, a failed case (its first failure's
// first line, less its colon, as the message), notes, and a file that could not run (its problems as one error).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderJunit } from '../../src/transports/policy-test/junit.js';
import { summarize, type CaseResult } from '../../src/transports/policy-test/report.js';
import { parseXml } from '../validate/xml.js';

const kase = (c: Partial<CaseResult>): CaseResult => ({
  name: 'allowed',
  line: 5,
  passed: true,
  operation: 'UPDATE',
  userInfo: { username: 'alice', groups: [] },
  got: { allowed: true, messages: [], warnings: [] },
  failures: [],
  notes: [],
  ...c,
});

const report = summarize([
  {
    file: 'a & b.hookkeeper-test.yaml',
    policy: 'policy.yaml',
    problems: [],
    cases: [
      kase({}),
      kase({
        name: 'wrongly <allowed>',
        passed: false,
        failures: [
          {
            expectation: 'messages',
            expected: ['x'],
            got: [],
            message: 'expected a denial matching:\n  "x"\ngot none',
          },
          { expectation: 'allowed', expected: true, got: false, message: "expected allowed, got 'denied'" },
        ],
        notes: ['RBAC not declared', 'parents not looked up'],
      }),
      kase({ name: 'noted', notes: ['RBAC not declared'] }),
    ],
  },
  {
    file: 'bad.hookkeeper-test.yaml',
    problems: [
      { line: 6, path: 'cases[0].expect', message: "must have required property 'allowed'" },
      { file: 'policy.yaml', message: 'not a <policy>' },
    ],
    cases: [],
  },
]);

const EXPECTED = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="hookkeeper test" tests="4" failures="1" errors="1" skipped="0">
  <testsuite name="a &amp; b.hookkeeper-test.yaml" tests="3" failures="1" errors="0" skipped="0">
    <testcase classname="a &amp; b.hookkeeper-test.yaml" name="allowed"/>
    <testcase classname="a &amp; b.hookkeeper-test.yaml" name="wrongly &lt;allowed&gt;">
      <failure message="expected a denial matching">expected a denial matching:
  &quot;x&quot;
got none

expected allowed, got &apos;denied&apos;</failure>
      <system-out>note: RBAC not declared
note: parents not looked up</system-out>
    </testcase>
    <testcase classname="a &amp; b.hookkeeper-test.yaml" name="noted">
      <system-out>note: RBAC not declared</system-out>
    </testcase>
  </testsuite>
  <testsuite name="bad.hookkeeper-test.yaml" tests="1" failures="0" errors="1" skipped="0">
    <testcase classname="bad.hookkeeper-test.yaml" name="bad.hookkeeper-test.yaml">
      <error message="bad.hookkeeper-test.yaml:6 cases[0].expect: must have required property &apos;allowed&apos;">bad.hookkeeper-test.yaml:6 cases[0].expect: must have required property &apos;allowed&apos;
policy.yaml: not a &lt;policy&gt;</error>
    </testcase>
  </testsuite>
</testsuites>
`;

test('hookkeeper test -o junit: a whole document, byte for byte', () => {
  const xml = renderJunit(report);
  parseXml(xml);
  assert.equal(xml, EXPECTED);
});
