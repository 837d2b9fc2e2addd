// `hookkeeper validate` as a library: manifests in, ValidateReport out, through the webhook's own path
// (handle('mutate-then-validate'): mutate, then validate the mutated object), plus the CRD schema when given.
import { handle } from '../../admission/handle.js';
import { metadata } from '../../core/guards.js';
import type { Policy } from '../../core/policy.js';
import { VALIDATE_ONLY } from '../../core/registry.js';
import type { Decision, SchemaError, KubeObject, ReviewInput, UserInfo, Violation } from '../../core/types.js';
import { AppError, type Problem } from '../../errors.js';
import type { CrdSet } from './crd.js';
import { DUPLICATE_KEY, parseManifests } from '../../infrastructure/manifests/documents.js';
import type { InputFile } from '../../infrastructure/manifests/inputs.js';
import { duplicate, identityKey, OldIndex, undecidedWithoutNamespace, withNamespace } from './identity.js';
import { isOtherToolsDocument, subjectsOf, type Keys, type Manifest, type Origin, type Subject } from './objects.js';
import { findingSide } from './sides.js';
import {
  describeObject,
  fieldPathKeys,
  REPORT_API_VERSION,
  type DeletionResult,
  type Finding,
  type Location,
  type ObjectRef,
  type ObjectResult,
  type Severity,
  type ValidateReport,
} from './report.js';

export interface ValidateOptions {
  policy: Policy;
  userInfo: UserInfo;
  crds?: CrdSet;
  /** -n: the namespace of manifests that have none (namespaced kinds), as kubectl apply -n sets it. */
  namespace?: string;
  /** Where the old manifests came from, for notes: "at origin/main", "in --old old/". */
  oldSource?: string;
  /** --old-ref's revision, recorded in the report (its files are not in the working tree). */
  oldRef?: string;
  /** What reading the inputs could not read (reported beside the results) and skipped on purpose (notes). */
  read?: { problems: readonly Problem[]; notes: readonly string[] };
}

/** Where a finding points: a line of the new object's file, or (about something only the old version has) the old one's. */
type Place = Pick<Finding, 'line' | 'old'>;
type Locate = (v: Pick<Violation, 'path' | 'hook'>, keys: Keys) => Place;

/**
 * One file's subjects; what cannot be read is added to `problems` (exit 2) rather than thrown. A file found by
 * walking a directory whose every document is another tool's (isOtherToolsDocument) is added to `skipped` instead.
 */
function fileSubjects(f: InputFile, problems: Problem[], skipped: string[]): Subject[] {
  try {
    const docs = parseManifests(f.text, f.file);
    if (f.walked && docs.length > 0 && docs.every((d) => isOtherToolsDocument(d.value))) {
      skipped.push(f.file);
      return [];
    }
    return subjectsOf(f.file, docs, problems);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const found = err.problems.length > 0 ? err.problems : [{ file: f.file, message: err.message }];
    problems.push(...capped(f.file, HELM_ACTION.test(f.text) ? withHelmHint(found) : found));
    return [];
  }
}

/** A Helm template action (`{{ .Values.x }}`, `{{- include … }}`) where YAML expects a value or a line. */
const HELM_ACTION = /(^|[\s:\-[,])\{\{-?\s/m;

/** A file that fails to parse and holds template actions is most likely a chart's template: say how to read it. */
function withHelmHint(found: readonly Problem[]): Problem[] {
  const [first, ...rest] = found;
  if (!first) return [];
  const hint =
    ' (this looks like a Helm template: judge the rendered chart, --render "helm template CHART", at both revisions with --old-ref)';
  return [{ ...first, message: `${first.message}${hint}` }, ...rest];
}

/** The parse errors of one file shown before the rest are counted: one mistake (a missing `---`) can make thousands. */
export const MAX_PARSE_ERRORS_SHOWN = 10;

function capped(file: string, found: readonly Problem[]): Problem[] {
  if (found.length <= MAX_PARSE_ERRORS_SHOWN) return [...found];
  const duplicates = found.filter((p) => p.message === DUPLICATE_KEY).length;
  // Manifests concatenated without a "---" between them read as one mapping whose keys all repeat.
  const hint =
    duplicates * 2 > found.length ? ': repeated keys all through, as in manifests joined without a "---" line' : '';
  return [
    ...found.slice(0, MAX_PARSE_ERRORS_SHOWN),
    { file, message: `and ${found.length - MAX_PARSE_ERRORS_SHOWN} more YAML errors in this file${hint}` },
  ];
}

/** The note for the walked files that held no Kubernetes object: counted, the first few named. */
function skippedNote(files: readonly string[]): string {
  const shown = files.slice(0, 5).join(', ');
  const more = files.length > 5 ? ` and ${files.length - 5} more` : '';
  const n = files.length === 1 ? '1 file holds' : `${files.length} files hold`;
  return `${n} no Kubernetes object and ${files.length === 1 ? 'was' : 'were'} skipped (another tool's YAML or JSON, or kustomize's configuration): ${shown}${more}`;
}

/** The old manifests could not all be read: every verdict may depend on them, so the run stops (with the new ones' problems too). */
function oldInputError(problems: readonly Problem[], oldProblems: readonly Problem[]): AppError {
  const n = oldProblems.length;
  return new AppError(
    'INPUT_INVALID',
    `cannot validate: the old manifests have ${n === 1 ? 'a problem' : `${n} problems`} (unreadable, not Kubernetes objects, or an object defined twice)`,
    { problems: [...problems, ...oldProblems] },
  );
}

/**
 * A copy of a string that does not keep its document's text alive. A parser's values are slices of its own copy
 * of each document, and V8 keeps the whole copy alive for any slice of 13 characters or more, so results holding
 * their object's name would pin every document for each garbage collection to copy. Slicing a concatenation makes
 * V8 flatten it into a string of its own, cheaper than a JSON round trip and as detached (BENCHMARKS.md).
 */
function detached(s: string): string {
  return ` ${s}`.slice(1);
}

function ref(input: ReviewInput, object: KubeObject | null): ObjectRef {
  const apiVersion =
    typeof object?.['apiVersion'] === 'string'
      ? object['apiVersion']
      : input.kind.group === ''
        ? input.kind.version
        : `${input.kind.group}/${input.kind.version}`;
  return {
    apiVersion: detached(apiVersion),
    kind: detached(input.kind.kind),
    ...(input.namespace ? { namespace: detached(input.namespace) } : {}),
    ...(input.name ? { name: detached(input.name) } : {}),
  };
}

function fromViolation(
  v: Pick<Violation, 'rule' | 'path' | 'message' | 'fix' | 'hook' | 'keys'>,
  severity: Severity,
  locate: Locate,
): Finding {
  const at = locate(v, v.keys ? [...v.keys] : fieldPathKeys(v.path));
  return {
    rule: v.rule,
    severity,
    path: v.path,
    ...(at.line === undefined ? {} : { line: at.line }),
    ...(at.old === undefined ? {} : { old: at.old }),
    message: v.message,
    ...(v.fix ? { fix: v.fix } : {}),
    ...(v.hook ? { hook: v.hook } : {}),
  };
}

/**
 * The notices the webhook returns as warnings (a removal by its owner leaves an audit trace only), but for an
 * unverified removal: that one is the policy's `unverifiedRemoval: warn`, reported as a warning finding.
 */
function noticeTexts(d: Decision): string[] {
  const out: string[] = [];
  for (const n of d.notices) if (n.warning !== undefined && n.unverifiedOwner === undefined) out.push(n.warning);
  return out;
}

/** An unverified removal as a `warn` finding of its rule, at the removed hook (in the old object). */
function unverifiedFindings(d: Decision, locate: Locate): Finding[] {
  const out: Finding[] = [];
  for (const n of d.notices) {
    if (n.unverifiedOwner === undefined || n.warning === undefined || n.path === undefined) continue;
    const v = {
      rule: n.rule,
      path: n.path,
      message: n.warning,
      ...(n.fix ? { fix: n.fix } : {}),
      ...(n.hook ? { hook: n.hook } : {}),
    };
    out.push(fromViolation(v, 'warn', locate));
  }
  return out;
}

/**
 * Whether a decision judged a hook's removal without the cluster's RBAC: an owner-only-removal finding about a hook
 * only the old object has (a removal or re-owning, not strictOwners' refusal of an added owner), or a removal allowed
 * unverified. Offline, only the registry and break-glass verify a removal; a grant could change the outcome.
 */
function judgedWithoutRbac(d: Decision, input: ReviewInput, now: KubeObject | null): boolean {
  const removal = (v: Violation): boolean =>
    v.rule === 'owner-only-removal' && findingSide(v, input.kind, now, input.oldObject) === 'old';
  return d.denials.some(removal) || d.warnings.some(removal) || d.notices.some((n) => n.unverifiedOwner !== undefined);
}

/** The report's note when some owner-only-removal outcome could have been different with the cluster's RBAC. */
export function rbacNote(policy: Policy): string {
  return (
    "owner-only-removal: the cluster's RBAC was not consulted (validate is offline): only the policy's owners " +
    'registry and break-glass verify a removal here, so a removal an RBAC grant (remove on ' +
    'hookowners.hookkeeper.io/<owner>) would allow in the cluster is denied for a registered owner and gets ' +
    `unverifiedRemoval (${policy.unverifiedRemoval}) for any other`
  );
}

/** Whether a template's hook removal was judged by the registry alone: offline, no RBAC grant can make it the owner's. */
function templateJudgedWithoutRbac(d: Decision): boolean {
  return [...d.denials, ...d.warnings].some((v) => v.rule === 'template-hook-removed');
}

/** The report's note when a template-hook-removed finding could have been quiet with the cluster's RBAC. */
export const TEMPLATE_RBAC_NOTE =
  "template-hook-removed: the cluster's RBAC was not consulted (validate is offline): only an identity the policy's " +
  "owners registry names counts as a hook's owner here, so a removal by one an RBAC grant (remove on " +
  'hookowners.hookkeeper.io/<owner>) lets act for the owner is reported, where the cluster says nothing';

/** The webhook's rules' findings (denials, then warnings). */
function decisionFindings(d: Decision, line: Locate): Finding[] {
  const out: Finding[] = [];
  for (const v of d.denials) if (!VALIDATE_ONLY.has(v.rule)) out.push(fromViolation(v, 'deny', line));
  for (const v of d.warnings) if (!VALIDATE_ONLY.has(v.rule)) out.push(fromViolation(v, 'warn', line));
  return out;
}

/**
 * The findings of the rules only `validate` runs (capi-migration, crd-schema), rule by rule in registry order,
 * each in the order its check found them: the schema's errors as the check listed them (messages are unique
 * there), though ratcheting filed some of them under warnings.
 */
function validateOnlyFindings(
  d: Decision,
  line: Locate,
  schemaOrder: ReadonlyMap<string, number> | undefined,
): Finding[] {
  const out: Finding[] = [];
  for (const id of VALIDATE_ONLY) {
    const own: Finding[] = [];
    for (const v of d.denials) if (v.rule === id) own.push(fromViolation(v, 'deny', line));
    for (const v of d.warnings) if (v.rule === id) own.push(fromViolation(v, 'warn', line));
    if (id === 'crd-schema' && schemaOrder)
      own.sort((a, b) => (schemaOrder.get(a.message) ?? 0) - (schemaOrder.get(b.message) ?? 0));
    for (const f of own) out.push(f);
  }
  return out;
}

/** The `schema` fact for `--crd`: the CRD check of the object's kind, remembering the order it found errors in `object`. */
function schemaFact(
  crds: CrdSet,
  input: ReviewInput,
  order: Map<string, number>,
): (object: KubeObject) => readonly SchemaError[] {
  return (object) => {
    const found = crds.validate(input.kind, object);
    if (object !== input.oldObject) found.forEach((f, i) => order.set(f.message, i));
    return found;
  };
}

function reviewSubject(
  s: Subject,
  old: Manifest | undefined,
  options: ValidateOptions,
  seen: { withoutRbac: boolean; templateWithoutRbac: boolean },
  oldGiven: boolean,
): ObjectResult {
  const base: ReviewInput =
    s.type === 'review'
      ? { ...s.input, source: 'validate' }
      : {
          operation: old ? 'UPDATE' : 'CREATE',
          kind: s.gvk,
          ...(s.namespace === undefined ? {} : { namespace: s.namespace }),
          ...(s.name === undefined ? {} : { name: s.name }),
          object: s.object,
          oldObject: old?.object ?? null,
          userInfo: options.userInfo,
          // Judged as the real apply will be, not as a server-side dry run.
          dryRun: false,
          source: 'validate',
        };
  // --crd: the crd-schema rule gets the object's schema check as a fact (the API server's CRD validation).
  const schemaOrder = new Map<string, number>();
  const input: ReviewInput = options.crds
    ? { ...base, context: { ...base.context, schema: schemaFact(options.crds, base, schemaOrder) } }
    : base;
  const outcome = handle('mutate-then-validate', options.policy, input);
  const now = outcome.mutation.mutated ?? input.object;
  // The old version's text: the old manifest's file, or the AdmissionReview's own request.oldObject.
  const oldAt =
    s.type === 'review'
      ? { file: s.origin.file, lineOf: (keys: Keys) => s.doc.lineOf(['request', 'oldObject', ...keys]) }
      : old && { file: old.origin.file, lineOf: (keys: Keys) => old.doc.lineOf([...old.pointer, ...keys]) };
  const line: Locate = (v, keys) => {
    if (oldAt && findingSide(v, input.kind, now, input.oldObject) === 'old') {
      const at = oldAt.lineOf(keys);
      return { old: { file: oldAt.file, ...(at === undefined ? {} : { line: at }) } };
    }
    const at = s.doc.lineOf([...s.pointer, ...keys]);
    return at === undefined ? {} : { line: at };
  };
  if (!seen.withoutRbac && judgedWithoutRbac(outcome.decision, input, now)) seen.withoutRbac = true;
  if (!seen.templateWithoutRbac && templateJudgedWithoutRbac(outcome.decision)) seen.templateWithoutRbac = true;
  const findings = [...decisionFindings(outcome.decision, line), ...unverifiedFindings(outcome.decision, line)];
  const extra = validateOnlyFindings(outcome.decision, line, options.crds ? schemaOrder : undefined);
  if (extra.length > 0) {
    // The hook rules word CRD violations as the API server does: one problem, reported once.
    const said = new Set(findings.map((f) => f.message));
    findings.push(...extra.filter((f) => !said.has(f.message)));
  }
  const patch = [...outcome.mutation.patch];
  const { file, document, item } = s.origin;
  const notes: string[] = [];
  let oldVersionFound: boolean | undefined;
  if (s.type === 'manifest') {
    if (oldGiven && s.name !== undefined) {
      oldVersionFound = old !== undefined;
      if (!old)
        notes.push(
          `no old version of ${describeObject(ref(input, s.object))} was found ${options.oldSource ?? 'in the old manifests'}: judged as a CREATE`,
        );
    }
    if (s.namespace === undefined)
      notes.push(...undecidedWithoutNamespace(options.policy, s.gvk, input.operation, metadata(s.object)['labels']));
  }
  // A List item's own line costs a positional parse of its document: only items with something to show pay it.
  const at =
    item !== undefined && (findings.length > 0 || patch.length > 0)
      ? (s.doc.lineOf(s.pointer) ?? s.origin.line)
      : s.origin.line;
  // Field by field, not {...origin, ...}: V8 builds a literal that starts with a spread on a slow path, which
  // costs more per document than the rules (BENCHMARKS.md).
  return {
    file,
    document,
    ...(item === undefined ? {} : { item }),
    line: at,
    object: ref(input, input.object ?? input.oldObject),
    operation: input.operation,
    ...(old ? { old: oldLocation(old) } : {}),
    ...(oldVersionFound === undefined ? {} : { oldVersionFound }),
    source: s.type === 'review' ? 'AdmissionReview' : 'manifest',
    allowed: !findings.some((f) => f.severity === 'deny'),
    findings,
    notices: noticeTexts(outcome.decision),
    patch,
    changes: [...outcome.mutation.changes],
    notes,
  };
}

function oldLocation(old: Manifest): Location {
  const { file, document, item, line } = old.origin;
  return { file, document, ...(item === undefined ? {} : { item }), line };
}

/** Old objects missing from the new set are judged as DELETE; the built-in rules allow every DELETE. */
function reviewDeletion(old: Manifest, options: ValidateOptions): DeletionResult {
  const input: ReviewInput = {
    operation: 'DELETE',
    kind: old.gvk,
    ...(old.namespace === undefined ? {} : { namespace: old.namespace }),
    ...(old.name === undefined ? {} : { name: old.name }),
    object: null,
    oldObject: old.object,
    userInfo: options.userInfo,
    dryRun: false,
    source: 'validate',
  };
  const findings = decisionFindings(handle('mutate-then-validate', options.policy, input).decision, (_v, keys) => {
    const at = old.doc.lineOf([...old.pointer, ...keys]);
    return at === undefined ? {} : { line: at };
  });
  const { file, document, item, line } = old.origin;
  return {
    file,
    document,
    ...(item === undefined ? {} : { item }),
    line,
    object: ref(input, old.object),
    allowed: !findings.some((f) => f.severity === 'deny'),
    findings,
  };
}

export function validateInputs(
  files: readonly InputFile[],
  oldFiles: readonly InputFile[] | undefined,
  options: ValidateOptions,
): ValidateReport {
  const oldProblems: Problem[] = [];
  const oldIndex = new OldIndex(oldFiles ?? [], options.namespace, oldProblems);

  const problems: Problem[] = [...(options.read?.problems ?? [])];
  const notes: string[] = [...(options.read?.notes ?? [])];
  // Where each identity was first seen, not the manifest: holding every parsed document would undo the file-by-file
  // reading below.
  const firstSeen = new Map<string, Origin>();
  const results: ObjectResult[] = [];
  const seen = { withoutRbac: false, templateWithoutRbac: false };
  // File by file, so a file's parsed documents are garbage once reviewed: holding every document of a large run
  // at once makes garbage collection cost more than the rules (BENCHMARKS.md).
  const skipped: string[] = [];
  for (const f of files) {
    const subjects = fileSubjects(f, problems, skipped);
    // An unreadable old input is fatal (every verdict could depend on it); an unreadable new one is reported beside
    // the results of the others, so one bad file in a repository hides nothing else.
    if (oldProblems.length > 0) continue;
    for (const given of subjects) {
      const s = withNamespace(given, options.namespace);
      const key = identityKey(s);
      if (key !== undefined && s.type === 'manifest') {
        const first = firstSeen.get(key);
        if (first) problems.push(duplicate(key, [first, s.origin]));
        else firstSeen.set(key, s.origin);
      }
      const old = key === undefined ? undefined : oldIndex.find(key, oldProblems);
      if (oldProblems.length > 0) continue;
      results.push(reviewSubject(s, old, options, seen, oldFiles !== undefined));
    }
  }
  // With an input unread, an object missing from the inputs may be in it: no deletion can be told.
  const deletions = problems.length > 0 ? [] : oldIndex.deletions(new Set(firstSeen.keys()), oldProblems);
  if (problems.length > 0 && oldFiles !== undefined)
    notes.push(
      'deletions are not listed: an input could not be read, and an object missing from the rest may be in it',
    );
  // The new manifests' problems first: they are the ones the change being checked brings.
  if (oldProblems.length > 0) throw oldInputError(problems, oldProblems);
  if (oldIndex.unsearched.length > 0)
    notes.push(
      `not searched for old versions, as they are not YAML: ${oldIndex.unsearched.join(', ')} (an object whose old version is there is judged as a CREATE)`,
    );
  if (skipped.length > 0) notes.push(skippedNote(skipped));
  const deleted = deletions.map((old) => reviewDeletion(old, options));
  notes.push(...(options.crds?.notes ?? []));
  if (seen.withoutRbac) notes.push(rbacNote(options.policy));
  if (seen.templateWithoutRbac) notes.push(TEMPLATE_RBAC_NOTE);

  return {
    apiVersion: REPORT_API_VERSION,
    kind: 'ValidateReport',
    userInfo: { username: options.userInfo.username, groups: [...options.userInfo.groups] },
    ...(options.oldRef === undefined ? {} : { oldRef: options.oldRef }),
    summary: {
      objects: results.length,
      allowed: results.filter((r) => r.allowed).length,
      denied: results.filter((r) => !r.allowed).length + deleted.filter((d) => !d.allowed).length,
      warnings: [...results, ...deleted].reduce(
        (n, r) => n + r.findings.filter((f) => f.severity === 'warn').length,
        0,
      ),
      // A denied object is never stored: its mutation is not applied.
      patched: results.filter((r) => r.allowed && r.patch.length > 0).length,
      deletions: deleted.length,
    },
    results,
    deletions: deleted,
    notes,
    problems,
  };
}
