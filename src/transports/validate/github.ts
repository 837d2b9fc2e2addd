// `validate --output github`: GitHub Actions workflow commands (`::error file=…,line=…,title=…::message`), which a
// workflow step turns into annotations on the pull request's files, then the summary line as plain text.
import { annotate, type Annotation } from './annotations.js';
import { inWorkingTree, type ValidateRenderOptions, type ValidateReport } from './report.js';
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

/** One annotation as a workflow command; something only the old version has is annotated at the object that lost it. */
function annotationCommand(report: ValidateReport, a: Annotation): string {
  switch (a.kind) {
    case 'finding':
      return command(report, a.level, { file: a.subject.file, line: a.line }, `${a.rule} ${a.path}`, a.message);
    case 'note':
      return a.subject
        ? command(report, 'notice', a.subject, a.subject.title, a.text)
        : command(report, 'notice', {}, 'hookkeeper validate', a.text);
    case 'problem':
      return command(report, 'error', a, 'hookkeeper validate: input error', a.message);
  }
}

export function renderGithub(report: ValidateReport, options: ValidateRenderOptions): string {
  const lines = annotate(report).map((a) => annotationCommand(report, a));
  lines.push(summaryLine(report, options.showPatches, options.failOn));
  return `${lines.join('\n')}\n`;
}
