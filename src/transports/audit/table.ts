// `audit` for people: an aligned table on a terminal, one line per finding (with its fix) in a pipe, then
// what was audited, what was skipped, and the counts.
import { kindLabel } from '../../core/resources.js';
import { objectLabel, type AuditFinding, type AuditReport } from './report.js';

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  // The last column (the message) is not padded: it is as long as it needs to be.
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

function findingRows(findings: readonly AuditFinding[]): string[] {
  // The migration's column only where a finding concerns a copy of a migrated Machine.
  const migrated = findings.some((f) => f.authoritativeAPI !== undefined);
  const authoritative = (f: AuditFinding): string[] => (migrated ? [f.authoritativeAPI ?? ''] : []);
  return table([
    ['RESULT', 'RULE', 'KIND', 'NAMESPACE', 'NAME', ...(migrated ? ['AUTHORITATIVE'] : []), 'PATH', 'MESSAGE'],
    ...findings.map((f) => [
      f.result,
      f.rule,
      kindLabel(f.object.apiVersion, f.object.kind),
      f.object.namespace ?? '',
      f.object.name,
      ...authoritative(f),
      f.path ?? '',
      f.message,
    ]),
  ]);
}

/** A stuck hook's explanation: who must act, and the command that explains the whole Machine. */
function explanationLines(f: AuditFinding): string[] {
  const x = f.explanation;
  if (!x) return [];
  const at = x.waitingAt ? ` (waits at ${x.waitingAt.step}, ${x.waitingAt.evidence.basis})` : '';
  return [`  next: ${x.hook.nextStep.actor}${at}`, `  explain: ${x.explain}`];
}

function findingLines(findings: readonly AuditFinding[]): string[] {
  return findings.flatMap((f) => [
    `${f.result} ${f.rule} ${objectLabel(f.object)}${f.path ? ` ${f.path}` : ''}: ${f.message}`,
    ...(f.fix ? [`  fix: ${f.fix}`] : []),
    ...(f.authoritativeAPI ? [`  authoritative: ${f.authoritativeAPI}`] : []),
    ...explanationLines(f),
  ]);
}

/** Under the table: each stuck Machine's explain command, once. */
function explainCommands(findings: readonly AuditFinding[]): string[] {
  const commands = [...new Set(findings.flatMap((f) => (f.explanation ? [f.explanation.explain] : [])))];
  return commands.length > 0 ? ['stuck deletions, explained:', ...commands.map((c) => `  ${c}`), ''] : [];
}

export function summaryLines(report: AuditReport): string[] {
  const s = report.summary;
  const resources = report.resources
    .map((r) => `${r.resource}: ${r.status === 'audited' ? r.objects : 'not installed'}`)
    .join(', ');
  return [
    `audited ${s.objects} object${s.objects === 1 ? '' : 's'}${report.namespace ? ` in namespace ${report.namespace}` : ''} (${resources})`,
    `${s.fail} fail, ${s.warn} warn, ${s.passed} passed; ${s.stuckDeletions} stuck deletion${s.stuckDeletions === 1 ? '' : 's'}, ${s.orphanedHooks} orphaned hook${s.orphanedHooks === 1 ? '' : 's'}`,
    ...report.notes.map((n) => `note: ${n}`),
  ];
}

export function renderAudit(report: AuditReport, options: { tty: boolean }): string {
  const body =
    report.findings.length === 0
      ? []
      : options.tty
        ? [...findingRows(report.findings), '', ...explainCommands(report.findings)]
        : findingLines(report.findings);
  return `${[...body, ...summaryLines(report)].join('\n')}\n`;
}
