// What the CI formats (`--output sarif`, `--output github`) say of a report, worked out once: each finding's, note's
// and input problem's level, message and place, in the report's order. Each format only prints them; whether a place
// can be shown (stdin, a render's output, a file at --old-ref's revision) is the format's own question.
import {
  describeObject,
  describeProblem,
  type DeletionResult,
  type Finding,
  type ObjectResult,
  type ValidateReport,
} from './report.js';

/** The object an annotation is about: its name, the operation it was judged as, and where it is. */
export interface Subject {
  /** As text output names it: `Machine.machine.openshift.io openshift-machine-api/master-0`. */
  object: string;
  operation: string;
  /** `object [OPERATION]`, how both formats introduce it. */
  title: string;
  file: string;
  line: number;
}

/** A rule's finding on one object. */
export interface FindingAnnotation {
  kind: 'finding';
  level: 'error' | 'warning';
  rule: string;
  path: string;
  subject: Subject;
  /** The subject, the rule's message, the old place for something only the old version has, and the fix below. */
  message: string;
  /** The field's line in the new file; the object's own for something only the old version has (a removed hook). */
  line: number;
  /** Where the old version has it, and that place as text (`file:line`). */
  old?: { file: string; line?: number; place: string };
}

/** A note: about one object (a break-glass notice, how it was judged), or about the whole run. */
export interface NoteAnnotation {
  kind: 'note';
  text: string;
  subject?: Subject;
}

/** An input that could not be used. */
export interface ProblemAnnotation {
  kind: 'problem';
  message: string;
  file?: string;
  line?: number;
}

export type Annotation = FindingAnnotation | NoteAnnotation | ProblemAnnotation;

function subjectOf(r: ObjectResult | DeletionResult, operation: string): Subject {
  const object = describeObject(r.object);
  return { object, operation, title: `${object} [${operation}]`, file: r.file, line: r.line };
}

function finding(subject: Subject, f: Finding): FindingAnnotation {
  const old = f.old && { ...f.old, place: `${f.old.file}${f.old.line === undefined ? '' : `:${f.old.line}`}` };
  const message = [
    `${subject.title}: ${f.message}${old ? ` (old: ${old.place})` : ''}`,
    ...(f.fix ? [`fix: ${f.fix}`] : []),
  ].join('\n');
  return {
    kind: 'finding',
    level: f.severity === 'deny' ? 'error' : 'warning',
    rule: f.rule,
    path: f.path,
    subject,
    message,
    line: f.old ? subject.line : (f.line ?? subject.line),
    ...(old ? { old } : {}),
  };
}

/**
 * Every annotation of a report, in its order: each object's findings then its notes, the deletions' findings, the
 * run's notes, the input problems.
 */
export function annotate(report: ValidateReport): Annotation[] {
  const out: Annotation[] = [];
  for (const r of report.results) {
    const subject = subjectOf(r, r.operation);
    for (const f of r.findings) out.push(finding(subject, f));
    for (const text of [...r.notices, ...r.notes]) out.push({ kind: 'note', text, subject });
  }
  for (const d of report.deletions) {
    const subject = subjectOf(d, 'DELETE');
    for (const f of d.findings) out.push(finding(subject, f));
  }
  for (const text of report.notes) out.push({ kind: 'note', text });
  for (const p of report.problems)
    out.push({
      kind: 'problem',
      message: describeProblem(p),
      ...(p.file === undefined ? {} : { file: p.file }),
      ...(p.line === undefined ? {} : { line: p.line }),
    });
  return out;
}
