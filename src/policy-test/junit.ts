// `hookkeeper test -o junit`: one testsuite per test file, one testcase per case (a failure listing each missed
// expectation), and for a file that could not run one testcase with an error listing its problems.
import { escapeXml } from '../validate/junit.js';
import { problemLine, type CaseResult, type FileResult, type PolicyTestReport } from './report.js';

function testcase(f: FileResult, c: CaseResult): string {
  const attrs = `classname="${escapeXml(f.file)}" name="${escapeXml(c.name)}"`;
  const first = c.failures[0];
  const body = [
    ...(first
      ? [
          `      <failure message="${escapeXml((first.message.split('\n')[0] ?? '').replace(/:$/, ''))}">${escapeXml(c.failures.map((x) => x.message).join('\n\n'))}</failure>`,
        ]
      : []),
    ...(c.notes.length > 0
      ? [`      <system-out>${escapeXml(c.notes.map((n) => `note: ${n}`).join('\n'))}</system-out>`]
      : []),
  ];
  return body.length === 0
    ? `    <testcase ${attrs}/>`
    : [`    <testcase ${attrs}>`, ...body, '    </testcase>'].join('\n');
}

function suite(f: FileResult): string {
  const name = escapeXml(f.file);
  if (f.problems.length > 0) {
    const text = f.problems.map((p) => problemLine(p, f.file));
    return [
      `  <testsuite name="${name}" tests="1" failures="0" errors="1" skipped="0">`,
      `    <testcase classname="${name}" name="${name}">`,
      `      <error message="${escapeXml(text[0] ?? '')}">${escapeXml(text.join('\n'))}</error>`,
      '    </testcase>',
      '  </testsuite>',
    ].join('\n');
  }
  const failures = f.cases.filter((c) => !c.passed).length;
  return [
    `  <testsuite name="${name}" tests="${f.cases.length}" failures="${failures}" errors="0" skipped="0">`,
    ...f.cases.map((c) => testcase(f, c)),
    '  </testsuite>',
  ].join('\n');
}

export function renderJunit(report: PolicyTestReport): string {
  const s = report.summary;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="hookkeeper test" tests="${s.cases + s.errors}" failures="${s.failed}" errors="${s.errors}" skipped="0">`,
    ...report.files.map(suite),
    '</testsuites>',
    '',
  ].join('\n');
}
