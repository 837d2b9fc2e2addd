// `validate` for people: each object with something to say (where it is, what, which rule, which field, how
// to fix it), then one summary line. Objects that pass silently stay silent, so 10,000 clean documents print one line.
import {
  describeObject,
  findingPlace,
  type DeletionResult,
  type Finding,
  type ObjectResult,
  type ValidateRenderOptions,
  type ValidateReport,
} from './report.js';

function where(r: { file: string; line: number; document: number; item?: number }): string {
  return `${r.file}:${r.line} (document ${r.document}${r.item === undefined ? '' : `, item ${r.item}`})`;
}

function findingLines(f: Finding): string[] {
  return [
    `  ${f.severity} ${f.rule} ${f.path}${findingPlace(f)}`,
    `    ${f.message}`,
    ...(f.fix ? [`    fix: ${f.fix}`] : []),
  ];
}

function objectLines(r: ObjectResult, showPatches: boolean): string[] {
  const shown =
    r.findings.length > 0 || r.notices.length > 0 || r.notes.length > 0 || (showPatches && r.patch.length > 0);
  if (!shown) return [];
  const state = r.allowed ? (r.patch.length > 0 ? 'allowed, patched' : 'allowed') : 'DENIED';
  return [
    `${where(r)}: ${describeObject(r.object)} [${r.operation}]: ${state}`,
    ...r.findings.flatMap(findingLines),
    ...r.notices.map((n) => `  notice: ${n}`),
    ...r.notes.map((n) => `  note: ${n}`),
    ...(showPatches && r.patch.length > 0
      ? [`  patch: ${JSON.stringify(r.patch)}`, ...r.changes.map((c) => `  change: ${c}`)]
      : []),
  ];
}

function deletionLines(d: DeletionResult): string[] {
  const head = `${where(d)}: ${describeObject(d.object)} [DELETE]: `;
  if (!d.allowed) return [`${head}DENIED`, ...d.findings.flatMap(findingLines)];
  return [
    `${head}deleted from the manifests: informational, not a violation (deleting a manifest removes no hook; in the cluster, the object's hooks still gate its deletion)`,
  ];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "; failed by --fail-on warn: hook-naming (2), capi-migration (1)": which warnings failed the run, by rule. */
function failedByWarnings(report: ValidateReport): string {
  const counts = new Map<string, number>();
  for (const r of [...report.results, ...report.deletions])
    for (const f of r.findings) if (f.severity === 'warn') counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  if (counts.size === 0) return '';
  return `; failed by --fail-on warn: ${[...counts].map(([rule, n]) => `${rule} (${n})`).join(', ')}`;
}

export function summaryLine(
  report: ValidateReport,
  showPatches: boolean,
  failOn?: ValidateRenderOptions['failOn'],
): string {
  const s = report.summary;
  const patched = s.patched > 0 ? ` (${s.patched} patched${showPatches ? '' : ': see them with --show-patches'})` : '';
  const deletions = s.deletions > 0 ? `; ${plural(s.deletions, 'deletion')}` : '';
  // The problems themselves go to stderr, where a terminal shows them and a shell keeps them apart from the report.
  const problems = report.problems.length > 0 ? `; ${plural(report.problems.length, 'input error')}` : '';
  return `${plural(s.objects, 'object')}: ${s.allowed} allowed${patched}, ${s.denied} denied, ${plural(s.warnings, 'warning')}${deletions}${problems}${failOn === 'warn' ? failedByWarnings(report) : ''}`;
}

export function renderText(report: ValidateReport, options: ValidateRenderOptions): string {
  const lines = [
    ...report.results.flatMap((r) => objectLines(r, options.showPatches)),
    ...report.deletions.flatMap(deletionLines),
    ...report.notes.map((n) => `note: ${n}`),
    summaryLine(report, options.showPatches, options.failOn),
  ];
  return `${lines.join('\n')}\n`;
}
