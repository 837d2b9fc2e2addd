// `validate --output junit`: one testcase per object (a failure per denied object), grouped in one testsuite
// per file; src/infrastructure/junit.ts writes the XML.
import { renderJunitDocument, type JunitCase, type JunitSuite } from '../../infrastructure/junit.js';
import {
  describeObject,
  describeProblem,
  findingPlace,
  type DeletionResult,
  type Finding,
  type ObjectResult,
  type ValidateReport,
} from './report.js';

function findingText(f: Finding): string {
  return `${f.rule} ${f.path}${findingPlace(f)}: ${f.message}${f.fix ? `\nfix: ${f.fix}` : ''}`;
}

/** Where a problem without a file is filed: the run itself. */
const RUN = 'hookkeeper validate';

function caseName(r: ObjectResult | DeletionResult, operation: string): string {
  return `document ${r.document}${r.item === undefined ? '' : ` item ${r.item}`} (line ${r.line}): ${describeObject(r.object)} [${operation}]`;
}

const warnings = (findings: readonly Finding[]): string[] =>
  findings.filter((f) => f.severity === 'warn').map((f) => `warning: ${findingText(f)}`);

/** A reviewed object: its first denial names the failure, every denial is its text; `out` is its system-out. */
function reviewed(file: string, name: string, findings: readonly Finding[], out: readonly string[]): JunitCase {
  const denials = findings.filter((f) => f.severity === 'deny');
  const first = denials[0];
  return {
    classname: file,
    name,
    ...(first === undefined
      ? {}
      : { failure: { type: first.rule, message: first.message, text: denials.map(findingText).join('\n\n') } }),
    ...(out.length === 0 ? {} : { systemOut: out.join('\n') }),
  };
}

function cases(report: ValidateReport, showPatches: boolean): JunitCase[] {
  const out = report.results.map((r) =>
    reviewed(r.file, caseName(r, r.operation), r.findings, [
      ...warnings(r.findings),
      ...r.notices.map((n) => `notice: ${n}`),
      ...r.notes.map((n) => `note: ${n}`),
      ...(showPatches && r.patch.length > 0
        ? [`patch: ${JSON.stringify(r.patch)}`, ...r.changes.map((c) => `change: ${c}`)]
        : []),
    ]),
  );
  for (const d of report.deletions)
    out.push(
      reviewed(d.file, caseName(d, 'DELETE'), d.findings, [
        'deleted from the manifests: informational (deleting a manifest removes no hook)',
        ...warnings(d.findings),
      ]),
    );
  // An input that could not be validated: a JUnit error (the test could not run), not a failure.
  for (const p of report.problems) {
    const text = describeProblem(p);
    out.push({
      classname: p.file ?? RUN,
      name: p.line === undefined ? 'input' : `line ${p.line}: input`,
      error: { type: 'input', message: text, text },
    });
  }
  return out;
}

export function renderJunit(report: ValidateReport, options: { showPatches: boolean }): string {
  const byFile = new Map<string, JunitSuite>();
  for (const c of cases(report, options.showPatches)) {
    const suite = byFile.get(c.classname);
    if (suite) suite.cases.push(c);
    else byFile.set(c.classname, { name: c.classname, cases: [c] });
  }
  return renderJunitDocument(RUN, [...byFile.values()]);
}
