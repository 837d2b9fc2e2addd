// JUnit XML, the test-results format CI systems render (GitHub Actions reporters, GitLab, Jenkins): one writer for
// `validate -o junit` and `hookkeeper test -o junit`, which each map their report to this small model.

/** Why a case failed (an expectation not met) or could not run (an error); `text` is the element's body. */
export interface JunitOutcome {
  type?: string;
  message: string;
  text: string;
}

export interface JunitCase {
  classname: string;
  name: string;
  /** The case could not run (bad input): counted under `errors`. */
  error?: JunitOutcome;
  failure?: JunitOutcome;
  /** What the reader should see beside the verdict: warnings, notes. */
  systemOut?: string;
}

export interface JunitSuite {
  name: string;
  cases: JunitCase[];
}

/** XML 1.0 allows neither these characters nor lone surrogates, even escaped. */
const INVALID_XML =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(INVALID_XML, '\uFFFD')
    .replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string,
    );
}

function outcome(element: 'error' | 'failure', o: JunitOutcome): string {
  const type = o.type === undefined ? '' : `type="${escapeXml(o.type)}" `;
  return `      <${element} ${type}message="${escapeXml(o.message)}">${escapeXml(o.text)}</${element}>`;
}

function testcase(c: JunitCase): string {
  const attrs = `classname="${escapeXml(c.classname)}" name="${escapeXml(c.name)}"`;
  const body = [
    ...(c.error === undefined ? [] : [outcome('error', c.error)]),
    ...(c.failure === undefined ? [] : [outcome('failure', c.failure)]),
    ...(c.systemOut === undefined ? [] : [`      <system-out>${escapeXml(c.systemOut)}</system-out>`]),
  ];
  return body.length === 0
    ? `    <testcase ${attrs}/>`
    : [`    <testcase ${attrs}>`, ...body, '    </testcase>'].join('\n');
}

/** `tests="3" failures="1" errors="0" skipped="0"`: nothing is ever skipped. */
function counts(cases: readonly JunitCase[]): string {
  const failures = cases.filter((c) => c.failure !== undefined).length;
  const errors = cases.filter((c) => c.error !== undefined).length;
  return `tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="0"`;
}

/** The document: `<testsuites name>` holding each suite in order, its totals summed from the cases. */
export function renderJunitDocument(name: string, suites: readonly JunitSuite[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(name)}" ${counts(suites.flatMap((s) => s.cases))}>`,
    ...suites.map((s) =>
      [`  <testsuite name="${escapeXml(s.name)}" ${counts(s.cases)}>`, ...s.cases.map(testcase), '  </testsuite>'].join(
        '\n',
      ),
    ),
    '</testsuites>',
    '',
  ].join('\n');
}
