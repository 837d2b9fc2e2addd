// `validate --output github`: GitHub Actions workflow commands (`::error file=…,line=…,title=…::message`), which a
// workflow step turns into annotations on the pull request's files, then the summary line as plain text.
import type { Problem } from '../errors.js';
import {
  describeObject,
  describeProblem,
  inWorkingTree,
  type DeletionResult,
  type Finding,
  type ObjectResult,
  type ValidateRenderOptions,
  type ValidateReport,
} from './report.js';
import { summaryLine } from './text.js';

type Level = 'error' | 'warning' | 'notice';

/** A command's message: "%", CR and LF percent-encoded, as the runner decodes them (actions/toolkit's escapeData). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A command's property value: as a message, plus ":" and "," which end a value (actions/toolkit's escapeProperty). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

interface Place {
  file?: string;
  line?: number;
}

function command(report: ValidateReport, level: Level, at: Place, title: string, message: string): string {
  // An annotation is attached to a file of the checkout: not to stdin, nor to a file at --old-ref's revision.
  const onDisk = at.file !== undefined && inWorkingTree(report, at.file);
  const props = [
    ...(onDisk ? [`file=${escapeProperty(at.file ?? '')}`] : []),
    ...(onDisk && at.line !== undefined ? [`line=${at.line}`] : []),
    `title=${escapeProperty(title)}`,
  ];
  return `::${level} ${props.join(',')}::${escapeData(message)}`;
}

function findingCommand(
  report: ValidateReport,
  r: ObjectResult | DeletionResult,
  operation: string,
  f: Finding,
): string {
  const oldPlace = f.old && ` (old: ${f.old.file}${f.old.line === undefined ? '' : `:${f.old.line}`})`;
  const message = [
    `${describeObject(r.object)} [${operation}]: ${f.message}${oldPlace ?? ''}`,
    ...(f.fix ? [`fix: ${f.fix}`] : []),
  ].join('\n');
  // Something only the old version has (a removed hook) is annotated at the object that lost it.
  const at = { file: r.file, line: f.old ? r.line : (f.line ?? r.line) };
  return command(report, f.severity === 'deny' ? 'error' : 'warning', at, `${f.rule} ${f.path}`, message);
}

function problemCommand(report: ValidateReport, p: Problem): string {
  return command(
    report,
    'error',
    { ...(p.file === undefined ? {} : { file: p.file }), ...(p.line === undefined ? {} : { line: p.line }) },
    'hookkeeper validate: input error',
    describeProblem(p),
  );
}

export function renderGithub(report: ValidateReport, options: ValidateRenderOptions): string {
  const lines: string[] = [];
  for (const r of report.results) {
    for (const f of r.findings) lines.push(findingCommand(report, r, r.operation, f));
    for (const text of [...r.notices, ...r.notes])
      lines.push(
        command(report, 'notice', { file: r.file, line: r.line }, `${describeObject(r.object)} [${r.operation}]`, text),
      );
  }
  for (const d of report.deletions) for (const f of d.findings) lines.push(findingCommand(report, d, 'DELETE', f));
  for (const n of report.notes) lines.push(command(report, 'notice', {}, 'hookkeeper validate', n));
  for (const p of report.problems) lines.push(problemCommand(report, p));
  lines.push(summaryLine(report, options.showPatches, options.failOn));
  return `${lines.join('\n')}\n`;
}
