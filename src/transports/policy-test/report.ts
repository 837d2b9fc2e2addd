// The result of `hookkeeper test`: a stable, documented shape (the `-o json` document), from which the text and
// JUnit outputs are rendered.
import type { Operation, Stage } from '../../core/types.js';
import type { Problem } from '../../errors.js';
import type { ExpectedHook } from './schema.js';

export const REPORT_KIND = 'PolicyTestReport';

/** What a case ended with: the webhook's verdict, every denial and warning in full, the mutated object's hooks. */
export interface Observed {
  allowed: boolean;
  /** Each denial's message (the response joins the first five; a test matches against all of them). */
  messages: string[];
  /** The response's warnings, uncapped: break-glass and unverified notices, then `<rule>: <message>` per warning. */
  warnings: string[];
  /** The hooks of the object after mutation, per stage of its kind; absent for a DELETE or a kind that carries no hooks. */
  hooks?: Partial<Record<Stage, ExpectedHook[]>>;
}

export interface Failure {
  expectation: 'allowed' | 'messages' | 'warnings' | 'hooks';
  /** Which stage, for a hooks failure. */
  stage?: Stage;
  expected: unknown;
  got: unknown;
  /** "expected X, got Y", as the text output prints it. */
  message: string;
}

export interface CaseResult {
  name: string;
  line: number;
  passed: boolean;
  operation: Operation;
  userInfo: { username: string; groups: string[] };
  got: Observed;
  failures: Failure[];
  /** What the outcome rests on that a cluster could change (RBAC not declared, parents not looked up). */
  notes: string[];
}

export interface FileResult {
  file: string;
  policy?: string;
  /** Why the file could not run (then `cases` is empty): the test file's, its objects' or its policy's problems. */
  problems: Problem[];
  cases: CaseResult[];
}

export interface PolicyTestReport {
  apiVersion: 'hookkeeper.io/v1alpha1';
  kind: typeof REPORT_KIND;
  summary: { files: number; cases: number; passed: number; failed: number; errors: number };
  files: FileResult[];
}

export function summarize(files: FileResult[]): PolicyTestReport {
  const cases = files.flatMap((f) => f.cases);
  return {
    apiVersion: 'hookkeeper.io/v1alpha1',
    kind: REPORT_KIND,
    summary: {
      files: files.length,
      cases: cases.length,
      passed: cases.filter((c) => c.passed).length,
      failed: cases.filter((c) => !c.passed).length,
      errors: files.filter((f) => f.problems.length > 0).length,
    },
    files,
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "5 cases in 2 files: 4 passed, 1 failed; 1 file could not be run". */
export function summaryLine(report: PolicyTestReport): string {
  const s = report.summary;
  const head = `${plural(s.cases, 'case')} in ${plural(s.files, 'file')}: ${s.passed} passed, ${s.failed} failed`;
  return s.errors === 0 ? head : `${head}; ${plural(s.errors, 'file')} could not be run`;
}

/** "file:line path: message", as compilers and linters print, so editors and CI annotate the line. */
export function problemLine(p: Problem, file: string): string {
  const where = `${p.file ?? file}${p.line === undefined ? '' : `:${p.line}`}`;
  return `${where}${p.path === undefined ? '' : ` ${p.path}`}: ${p.message}`;
}
