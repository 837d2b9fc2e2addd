// `hookkeeper test` for people: one line per case (PASS or FAIL, where it is, its name), under a failed case each
// expectation it missed as expected and got, the problems of a file that could not run, then one summary line.
import { problemLine, summaryLine, type PolicyTestReport } from './report.js';

export function renderText(report: PolicyTestReport): string {
  const out: string[] = [];
  for (const f of report.files) {
    for (const p of f.problems) out.push(problemLine(p, f.file));
    for (const c of f.cases) {
      out.push(`${c.passed ? 'PASS' : 'FAIL'} ${f.file}:${c.line} ${c.name}`);
      for (const failure of c.failures) out.push(`  ${failure.message}`);
      for (const note of c.notes) out.push(`  note: ${note}`);
    }
  }
  out.push(summaryLine(report));
  return `${out.join('\n')}\n`;
}
