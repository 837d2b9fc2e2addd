// `hookkeeper test -o junit`: one testsuite per test file, one testcase per case (a failure listing each missed
// expectation), and for a file that could not run one testcase with an error listing its problems; src/infrastructure/junit.ts
// writes the XML.
import { renderJunitDocument, type JunitCase, type JunitSuite } from '../../infrastructure/junit.js';
import { problemLine, type CaseResult, type FileResult, type PolicyTestReport } from './report.js';

function testcase(f: FileResult, c: CaseResult): JunitCase {
  const first = c.failures[0];
  return {
    classname: f.file,
    name: c.name,
    // The first failure's first line ("expected a denial matching:") without its colon is the message.
    ...(first === undefined
      ? {}
      : {
          failure: {
            message: (first.message.split('\n')[0] ?? '').replace(/:$/, ''),
            text: c.failures.map((x) => x.message).join('\n\n'),
          },
        }),
    ...(c.notes.length === 0 ? {} : { systemOut: c.notes.map((n) => `note: ${n}`).join('\n') }),
  };
}

function suite(f: FileResult): JunitSuite {
  if (f.problems.length > 0) {
    const text = f.problems.map((p) => problemLine(p, f.file));
    return {
      name: f.file,
      cases: [{ classname: f.file, name: f.file, error: { message: text[0] ?? '', text: text.join('\n') } }],
    };
  }
  return { name: f.file, cases: f.cases.map((c) => testcase(f, c)) };
}

export function renderJunit(report: PolicyTestReport): string {
  return renderJunitDocument('hookkeeper test', report.files.map(suite));
}
