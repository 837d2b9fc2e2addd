// The result of `hookkeeper validate`: a stable, documented shape (the `--output json` document), from which
// the text and JUnit outputs are rendered.
import { kindLabel } from '../../core/resources.js';
import type { HookRef, Operation, PatchOperation, UserInfo } from '../../core/types.js';
import { OFFLINE_USERNAME } from '../../core/identity.js';
import { AppError, type Problem } from '../../errors.js';
import { STDIN_NAME } from '../../infrastructure/manifests/inputs.js';

export const REPORT_API_VERSION = 'hookkeeper.io/v1alpha1';

/** Who `validate` judges changes as when --as is not given: a user no policy registers, so removals are checked. */
export const DEFAULT_USER: UserInfo = Object.freeze({ username: OFFLINE_USERNAME, groups: [] });

/** `deny` fails the run (exit 1); `warn` is reported and does not. */
export type Severity = 'deny' | 'warn';

/** How `validate` is asked to render a report (the same for every format). */
export interface ValidateRenderOptions {
  /** Also print the mutation the webhook would apply. */
  showPatches: boolean;
  /** What fails the run (--fail-on): under `warn` the summary names the warnings that failed it. */
  failOn?: Severity;
}

export interface Finding {
  /** An engine rule id (hook-naming, owner-only-removal, ...) or `crd-schema`. */
  rule: string;
  severity: Severity;
  /** Field path in the API server's notation: spec.lifecycleHooks.preDrain[1].name. */
  path: string;
  /** 1-based line of the field (or of its nearest present parent) in the new object's file. */
  line?: number;
  /**
   * Set instead of `line` when the finding is about something only the old version has (a removed hook): where
   * that is, in the old object's file.
   */
  old?: { file: string; line?: number };
  message: string;
  fix?: string;
  hook?: HookRef;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
}

export interface Location {
  file: string;
  /** 1-based position of the document among the file's non-empty YAML documents. */
  document: number;
  /** 0-based position in a List's items (the outer List's, for a List inside a List). */
  item?: number;
  /** 1-based line of the document, or of the List item. */
  line: number;
}

export interface ObjectResult extends Location {
  object: ObjectRef;
  /** CREATE, or UPDATE when an old version was found; an AdmissionReview's own operation. */
  operation: Operation;
  /** Where the old version was found (a manifest judged as UPDATE). */
  old?: Location;
  /**
   * Set for a manifest when old manifests were given (--old, --old-ref): whether its old version was found. False
   * means judged as a CREATE because nothing old had its identity (a renamed object, or old manifests not given).
   */
  oldVersionFound?: boolean;
  source: 'manifest' | 'AdmissionReview';
  allowed: boolean;
  findings: Finding[];
  /** Allowed-with-a-trace messages (break-glass removals), as the webhook returns them as warnings. */
  notices: string[];
  /** The mutating webhook's JSON Patch for this object (RFC 6902), empty when it changes nothing. */
  patch: PatchOperation[];
  /** The same change in words. */
  changes: string[];
  /** What the reviewer should know about how the object was judged: no old version found, a namespace missing. */
  notes: string[];
}

/** An object in the old manifests with no counterpart in the new ones. */
export interface DeletionResult extends Location {
  object: ObjectRef;
  /** False only if the policy denies the DELETE (the built-in rules never do: hooks gate deletion in the cluster). */
  allowed: boolean;
  findings: Finding[];
}

export interface ValidateReport {
  apiVersion: typeof REPORT_API_VERSION;
  kind: 'ValidateReport';
  /** The identity the changes were judged as (--as, --as-group). */
  userInfo: { username: string; groups: string[] };
  /** --old-ref's revision: the old files read from it are named "REVISION:path", and are not in the working tree. */
  oldRef?: string;
  summary: { objects: number; allowed: number; denied: number; warnings: number; patched: number; deletions: number };
  results: ObjectResult[];
  deletions: DeletionResult[];
  notes: string[];
  /**
   * Inputs that could not be read or are not Kubernetes objects, each with its file (and line when known); any
   * makes the run an input error (exit 2), with the results of every other input reported beside them.
   */
  problems: Problem[];
}

/** "spec.lifecycleHooks.preDrain[1].name" / "metadata.annotations[a.b/c]" -> keys, for line lookup. */
export function fieldPathKeys(path: string): Array<string | number> {
  const keys: Array<string | number> = [];
  for (const m of path.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)) {
    if (m[2] !== undefined) keys.push(m[2]);
    else if (m[1] !== undefined) keys.push(/^\d+$/.test(m[1]) ? Number(m[1]) : m[1]);
  }
  return keys;
}

export function describeObject(o: ObjectRef): string {
  const where = [o.namespace, o.name ?? '(generated name)'].filter(Boolean).join('/');
  return `${kindLabel(o.apiVersion, o.kind)} ${where}`;
}

/** " (line 12)" in the new object's file, or " (old: REF:path:12)" for something only the old version has. */
export function findingPlace(f: Finding): string {
  if (f.old) return ` (old: ${f.old.file}${f.old.line === undefined ? '' : `:${f.old.line}`})`;
  return f.line === undefined ? '' : ` (line ${f.line})`;
}

/**
 * The report of a run stopped by an error (an unreadable old manifest, no objects, a bad flag value): no results, and
 * the error as its problems, so a JUnit or SARIF file a CI system reads still says what failed.
 */
export function failedReport(userInfo: UserInfo, err: unknown): ValidateReport {
  const message = err instanceof Error ? err.message : String(err);
  const problems: Problem[] =
    err instanceof AppError && err.problems.length > 0 ? [{ message }, ...err.problems] : [{ message }];
  return {
    apiVersion: REPORT_API_VERSION,
    kind: 'ValidateReport',
    userInfo: { username: userInfo.username, groups: [...userInfo.groups] },
    summary: { objects: 0, allowed: 0, denied: 0, warnings: 0, patched: 0, deletions: 0 },
    results: [],
    deletions: [],
    notes: [],
    problems,
  };
}

/** "file:line path: message", "file: message" or the message alone. */
export function describeProblem(p: Problem): string {
  const where = [p.file, p.line === undefined ? undefined : String(p.line)].filter(Boolean).join(':');
  const at = [where, p.path].filter(Boolean).join(' ');
  return at === '' ? p.message : `${at}: ${p.message}`;
}

/**
 * Whether a report file is in the working tree: not stdin or a render's output ("<kustomize build overlays/prod>"),
 * and not a file at --old-ref's revision.
 */
export function inWorkingTree(report: Pick<ValidateReport, 'oldRef'>, file: string): boolean {
  if (file === STDIN_NAME || /^<.*>$/s.test(file)) return false;
  return report.oldRef === undefined || !file.startsWith(`${report.oldRef}:`);
}

/** The reports of inputs judged apart (each render against its own old side) as one: results in order, counts summed. */
export function mergeReports(reports: readonly ValidateReport[]): ValidateReport {
  const [first, ...rest] = reports;
  if (!first) throw new AppError('INTERNAL', 'no report to merge');
  const sum = { ...first.summary };
  for (const r of rest) for (const k of Object.keys(sum) as Array<keyof typeof sum>) sum[k] += r.summary[k];
  return {
    ...first,
    summary: sum,
    results: reports.flatMap((r) => r.results),
    deletions: reports.flatMap((r) => r.deletions),
    notes: [...new Set(reports.flatMap((r) => r.notes))],
    problems: reports.flatMap((r) => r.problems),
  };
}
