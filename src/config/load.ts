// Policy loading: YAML -> schema check (ajv, all errors) -> semantic checks -> defaults -> frozen Policy.
// Every problem is reported at once, with file, path and line, so a broken ConfigMap is fixed in one go.
import { readFile } from 'node:fs/promises';
import { hookAnnotationKey } from '../core/capi.js';
import { carrierFor } from '../core/carriers.js';
import { WILDCARD_PROBE_OWNER } from '../core/ownership.js';
import { annotationKeyErrors } from '../core/qualified-name.js';
import { checkString, HOOK_NAME_PATTERN } from '../core/rules/hook-naming/rule.js';
import type { DefaultHookRule, ImpliedOwner, OwnerIdentities, Policy } from '../core/policy.js';
import { AppError } from '../errors.js';
import { childRuleProblems, type ChildRuleFile, withChildDefaults } from './children.js';
import { defaultHookConflicts, type Placed } from './default-hook-conflicts.js';
import { DEFAULT_POLICY, deepFreeze } from './defaults.js';
import { escapePointerToken } from '../core/pointer.js';
import { defaultHookKindProblem } from './kinds.js';
import { impliedOwnerProblems } from './implied-owners.js';
import { checkDocument, compileSchema } from './document.js';
import { displayPath } from './paths.js';
import { POLICY_SCHEMA } from './schema.js';
import { toKeys } from './yaml.js';

const validateSchema = compileSchema(POLICY_SCHEMA);

interface PolicyFile {
  enforcement?: Partial<Policy['enforcement']>;
  reservedHooks?: Policy['reservedHooks'];
  owners?: Record<string, Partial<OwnerIdentities>>;
  impliedOwners?: Policy['impliedOwners'];
  strictOwners?: boolean;
  unverifiedRemoval?: Policy['unverifiedRemoval'];
  wildcardGrants?: Policy['wildcardGrants'];
  breakGlass?: Partial<Policy['breakGlass']>;
  defaultHooks?: Array<Omit<DefaultHookRule, 'operations'> & { operations?: DefaultHookRule['operations'] }>;
  children?: ChildRuleFile[];
  maxHooksPerStage?: number;
  migration?: Partial<Policy['migration']>;
  machineControllers?: Partial<Policy['machineControllers']>;
}

/**
 * Reads and checks a policy file. `read` is how the file is read: on a hot reload, the content the watcher's two
 * agreeing reads saw (src/server/watch.ts), so a file being rewritten in place is never half-loaded.
 */
export async function loadPolicyFile(
  file: string,
  read: (file: string) => Promise<Buffer> = readFile,
): Promise<Policy> {
  let text: string;
  try {
    text = (await read(file)).toString('utf8');
  } catch (cause) {
    throw new AppError('CONFIG_INVALID', `cannot read policy file ${file}: ${(cause as Error).message}`, {
      cause,
      problems: [{ file, message: (cause as Error).message }],
    });
  }
  return parsePolicy(text, file);
}

export function parsePolicy(text: string, file: string): Policy {
  const checked = checkDocument(text, file, validateSchema);
  if (!('doc' in checked))
    throw new AppError('CONFIG_INVALID', `invalid policy ${file}`, {
      ...(checked.cause === undefined ? {} : { cause: checked.cause }),
      problems: checked.problems,
    });
  // Paths as the user wrote them (owners["team/storage"].users); the checks below work on JSON Pointers. The later
  // value of a key given twice is kept, so the rest of the file is still checked.
  const { doc, at, problems } = checked;
  // Schema problems first, but they do not hide the semantic ones: each semantic check runs on the fields it reads
  // when those passed the schema (present, no schema error at or below them), so every problem is fixed in one go.
  const schemaPaths = checked.schemaErrors.map((e) => e.pointer);
  const sound = (path: string): boolean =>
    valueAt(doc.value, path) !== undefined && !schemaPaths.some((p) => p === path || p.startsWith(`${path}/`));
  const items = <T>(path: string): Array<[number, T]> => {
    const list = valueAt(doc.value, path);
    return Array.isArray(list) && !schemaPaths.includes(path) ? list.map((v, i): [number, T] => [i, v as T]) : [];
  };
  const raw = (typeof doc.value === 'object' && doc.value !== null ? doc.value : {}) as PolicyFile;
  const reservedHooks = items<{ name: string; owner: string }>('/reservedHooks');
  const defaultHooks = items<NonNullable<PolicyFile['defaultHooks']>[number]>('/defaultHooks');
  const impliedOwners = items<ImpliedOwner>('/impliedOwners');

  // Hooks written in the policy obey the same naming rules as hooks in a Machine.
  const hookFields: Array<[string, string]> = [
    ...reservedHooks.flatMap(([i]) => ['name', 'owner'].map((f): [string, string] => [`/reservedHooks/${i}/${f}`, f])),
    ...defaultHooks.flatMap(([i]) =>
      ['name', 'owner'].map((f): [string, string] => [`/defaultHooks/${i}/hook/${f}`, f]),
    ),
    // An implied owner is a hook's owner, written for it.
    ...impliedOwners.map(([i]): [string, string] => [`/impliedOwners/${i}/owner`, 'owner']),
  ];
  for (const [path, field] of hookFields) {
    if (!sound(path)) continue;
    const limits =
      field === 'name'
        ? { min: 3, max: 256, pattern: { source: HOOK_NAME_PATTERN, re: new RegExp(HOOK_NAME_PATTERN) } }
        : { min: 3, max: 512 };
    const shown = displayPath(path);
    for (const p of checkString(shown, valueAt(doc.value, path), limits))
      problems.push(at(path, p.message.replace(`${shown}: `, '')));
  }
  // A kind no default hook is ever added to would switch the protection off without a word.
  for (const [i] of defaultHooks) {
    const path = `/defaultHooks/${i}/match/kinds`;
    if (!sound(path)) continue;
    (valueAt(doc.value, path) as Array<{ group: string; kind: string }>).forEach((k, j) => {
      const message = defaultHookKindProblem(k);
      if (message !== undefined) problems.push(at(`${path}/${j}`, message));
    });
  }
  // A default hook for Cluster API kinds becomes an annotation, whose key the API server checks more strictly.
  for (const [i, r] of defaultHooks) {
    const base = `/defaultHooks/${i}`;
    if (!sound(`${base}/match/kinds`) || !sound(`${base}/stage`) || !sound(`${base}/hook/name`)) continue;
    if (!r.match.kinds.some((k) => carrierFor({ ...k, version: '' })?.format === 'annotations')) continue;
    const key = hookAnnotationKey(r.stage, r.hook.name);
    for (const e of annotationKeyErrors(key))
      problems.push(at(`${base}/hook/name`, `as Cluster API annotation key ${JSON.stringify(key)}: ${e}`));
  }
  for (const [path, message] of impliedOwnerProblems(impliedOwners, sound)) problems.push(at(path, message));
  const seen = new Map<string, string>();
  for (const [i, h] of reservedHooks) {
    if (!sound(`/reservedHooks/${i}/name`) || !sound(`/reservedHooks/${i}/owner`)) continue;
    const other = seen.get(h.name);
    if (other !== undefined && other !== h.owner)
      problems.push(at(`/reservedHooks/${i}`, `hook ${h.name} is reserved twice with different owners`));
    seen.set(h.name, h.owner);
  }
  // The probe must stay an owner nobody holds by name, or wildcard rights could not be told from ownership.
  const reserved = `${WILDCARD_PROBE_OWNER} is reserved: hookkeeper asks RBAC about it to tell wildcard rights from a grant naming an owner`;
  if (sound('/owners') && raw.owners && Object.hasOwn(raw.owners, WILDCARD_PROBE_OWNER))
    problems.push(at(`/owners/${escapePointerToken(WILDCARD_PROBE_OWNER)}`, reserved));
  for (const [path, field] of hookFields)
    if (field === 'owner' && sound(path) && valueAt(doc.value, path) === WILDCARD_PROBE_OWNER)
      problems.push(at(path, reserved));

  // The reservations and default hooks in force (file, else embedded default), where each passed the schema.
  const reservedInForce: Array<Placed<Policy['reservedHooks'][number]>> =
    raw.reservedHooks === undefined
      ? DEFAULT_POLICY.reservedHooks.map((value) => ({ value }))
      : reservedHooks
          .filter(([i]) => sound(`/reservedHooks/${i}/name`) && sound(`/reservedHooks/${i}/owner`))
          .map(([i, value]) => ({ value, pointer: `/reservedHooks/${i}` }));
  const rulesInForce: Array<Placed<DefaultHookRule>> =
    raw.defaultHooks === undefined
      ? DEFAULT_POLICY.defaultHooks.map((value) => ({ value }))
      : defaultHooks
          .filter(([i]) =>
            ['match/kinds', 'stage', 'hook/name', 'hook/owner'].every((f) => sound(`/defaultHooks/${i}/${f}`)),
          )
          .map(([i, r]) => ({
            value: { ...r, operations: r.operations ?? [] },
            pointer: `/defaultHooks/${i}`,
          }));
  const where = (pointer: string): string => {
    const line = doc.lineOf(pointer);
    return `${displayPath(pointer)}${line === undefined ? '' : ` (line ${line})`}`;
  };
  for (const [path, message] of defaultHookConflicts(reservedInForce, rulesInForce, where))
    problems.push(at(path, message));
  const ruleNames = new Set<string>();
  for (const [i, r] of defaultHooks) {
    if (!sound(`/defaultHooks/${i}/name`)) continue;
    if (ruleNames.has(r.name))
      problems.push(at(`/defaultHooks/${i}/name`, `duplicate default hook rule name ${r.name}`));
    ruleNames.add(r.name);
  }
  // With an owners section that failed the schema, which owners are registered is unknown: not checked.
  const ownerKeys =
    raw.owners === undefined
      ? Object.keys(DEFAULT_POLICY.owners)
      : sound('/owners')
        ? Object.keys(raw.owners)
        : undefined;
  const children = items<ChildRuleFile>('/children').map(([, r]) => r);
  for (const [path, message] of childRuleProblems(children, ownerKeys, sound)) problems.push(at(path, message));
  if (problems.length > 0) {
    // In file order (a problem without a line, e.g. a missing top-level field, first), so the list reads like the file.
    const ordered = problems
      .map((p, i) => ({ p, i }))
      .sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || a.i - b.i)
      .map(({ p }) => p);
    throw new AppError('CONFIG_INVALID', `invalid policy ${file}`, { problems: ordered });
  }

  return deepFreeze(mergeWithDefaults(raw));
}

/** The value at a JSON pointer, or undefined when a step is missing or not a container. */
function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const key of toKeys(pointer)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** A field given in the file replaces the default field as a whole; enforcement merges rule by rule. */
function mergeWithDefaults(raw: PolicyFile): Policy {
  const d = DEFAULT_POLICY;
  const owners =
    raw.owners === undefined
      ? d.owners
      : Object.fromEntries(
          Object.entries(raw.owners).map(([owner, ids]) => [
            owner,
            { users: ids.users ?? [], groups: ids.groups ?? [], serviceAccounts: ids.serviceAccounts ?? [] },
          ]),
        );
  return structuredClone<Policy>({
    enforcement: { ...d.enforcement, ...raw.enforcement },
    reservedHooks: raw.reservedHooks ?? d.reservedHooks,
    owners,
    impliedOwners: raw.impliedOwners ?? d.impliedOwners,
    strictOwners: raw.strictOwners ?? d.strictOwners,
    unverifiedRemoval: raw.unverifiedRemoval ?? d.unverifiedRemoval,
    wildcardGrants: raw.wildcardGrants ?? d.wildcardGrants,
    breakGlass:
      raw.breakGlass === undefined
        ? d.breakGlass
        : { users: raw.breakGlass.users ?? [], groups: raw.breakGlass.groups ?? [] },
    defaultHooks:
      raw.defaultHooks === undefined
        ? d.defaultHooks
        : raw.defaultHooks.map((r) => ({ ...r, operations: r.operations ?? ['CREATE', 'UPDATE'] })),
    children: raw.children === undefined ? d.children : raw.children.map(withChildDefaults),
    maxHooksPerStage: raw.maxHooksPerStage ?? d.maxHooksPerStage,
    // Field by field: a file naming only its own synchronizer keeps OpenShift's namespaces.
    migration: { ...d.migration, ...raw.migration },
    // Group by group: a file naming only its Cluster API controllers keeps the Machine API's.
    machineControllers: { ...d.machineControllers, ...raw.machineControllers },
  });
}
