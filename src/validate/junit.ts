// `validate --output junit`: one testcase per object (a failure per denied object), grouped in one testsuite
// per file, the format CI systems (GitHub Actions reporters, GitLab, Jenkins) render as test results.
import {
  describeObject,
  describeProblem,
  findingPlace,
  type DeletionResult,
  type Finding,
  type ObjectResult,
  type ValidateReport,
} from './report.js';

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

function findingText(f: Finding): string {
  return `${f.rule} ${f.path}${findingPlace(f)}: ${f.message}${f.fix ? `\nfix: ${f.fix}` : ''}`;
}

interface Case {
  file: string;
  name: string;
  denials: Finding[];
  out: string[];
  /** An input that could not be validated: a JUnit error (the test could not run), not a failure. */
  error?: string;
}

/** Where a problem without a file is filed: the run itself. */
const RUN = 'hookkeeper validate';

function caseName(r: ObjectResult | DeletionResult, operation: string): string {
  return `document ${r.document}${r.item === undefined ? '' : ` item ${r.item}`} (line ${r.line}): ${describeObject(r.object)} [${operation}]`;
}

function cases(report: ValidateReport, showPatches: boolean): Case[] {
  const out: Case[] = report.results.map((r) => ({
    file: r.file,
    name: caseName(r, r.operation),
    denials: r.findings.filter((f) => f.severity === 'deny'),
    out: [
      ...r.findings.filter((f) => f.severity === 'warn').map((f) => `warning: ${findingText(f)}`),
      ...r.notices.map((n) => `notice: ${n}`),
      ...r.notes.map((n) => `note: ${n}`),
      ...(showPatches && r.patch.length > 0
        ? [`patch: ${JSON.stringify(r.patch)}`, ...r.changes.map((c) => `change: ${c}`)]
        : []),
    ],
  }));
  for (const d of report.deletions) {
    out.push({
      file: d.file,
      name: caseName(d, 'DELETE'),
      denials: d.findings.filter((f) => f.severity === 'deny'),
      out: [
        'deleted from the manifests: informational (deleting a manifest removes no hook)',
        ...d.findings.filter((f) => f.severity === 'warn').map((f) => `warning: ${findingText(f)}`),
      ],
    });
  }
  for (const p of report.problems)
    out.push({
      file: p.file ?? RUN,
      name: p.line === undefined ? 'input' : `line ${p.line}: input`,
      denials: [],
      out: [],
      error: describeProblem(p),
    });
  return out;
}

function testcase(c: Case): string {
  const attrs = `classname="${escapeXml(c.file)}" name="${escapeXml(c.name)}"`;
  const first = c.denials[0];
  const body = [
    ...(c.error === undefined
      ? []
      : [`      <error type="input" message="${escapeXml(c.error)}">${escapeXml(c.error)}</error>`]),
    ...(first
      ? [
          `      <failure type="${escapeXml(first.rule)}" message="${escapeXml(first.message)}">${escapeXml(c.denials.map(findingText).join('\n\n'))}</failure>`,
        ]
      : []),
    ...(c.out.length > 0 ? [`      <system-out>${escapeXml(c.out.join('\n'))}</system-out>`] : []),
  ];
  return body.length === 0
    ? `    <testcase ${attrs}/>`
    : [`    <testcase ${attrs}>`, ...body, '    </testcase>'].join('\n');
}

export function renderJunit(report: ValidateReport, options: { showPatches: boolean }): string {
  const all = cases(report, options.showPatches);
  const byFile = new Map<string, Case[]>();
  for (const c of all) {
    const list = byFile.get(c.file);
    if (list) list.push(c);
    else byFile.set(c.file, [c]);
  }
  const failures = (list: Case[]): number => list.filter((c) => c.denials.length > 0).length;
  const errors = (list: Case[]): number => list.filter((c) => c.error !== undefined).length;
  const suites = [...byFile].map(([file, list]) =>
    [
      `  <testsuite name="${escapeXml(file)}" tests="${list.length}" failures="${failures(list)}" errors="${errors(list)}" skipped="0">`,
      ...list.map(testcase),
      '  </testsuite>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${RUN}" tests="${all.length}" failures="${failures(all)}" errors="${errors(all)}" skipped="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
