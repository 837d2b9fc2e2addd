// Policy loading: YAML -> schema check (ajv, all errors) -> semantic checks -> defaults -> frozen Policy.
// Every problem is reported at once, with file, path and line, so a broken ConfigMap is fixed in one go.
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import { hookAnnotationKey } from '../core/capi.js';
import { carrierFor } from '../core/carriers.js';
import { annotationKeyErrors } from '../core/qualified-name.js';
import { checkString, HOOK_NAME_PATTERN } from '../core/rules/naming.js';
import type { DefaultHookRule, OwnerIdentities, Policy } from '../core/policy.js';
import { AppError, type Problem } from '../errors.js';
import { childRuleProblems, type ChildRuleFile, withChildDefaults } from './children.js';
import { DEFAULT_POLICY, deepFreeze } from './defaults.js';
import { POLICY_SCHEMA } from './schema.js';
import { parseYamlDocuments, type YamlDocument } from './yaml.js';

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const validateSchema = ajv.compile(POLICY_SCHEMA);

interface PolicyFile {
  enforcement?: Partial<Policy['enforcement']>;
  reservedHooks?: Policy['reservedHooks'];
  owners?: Record<string, Partial<OwnerIdentities>>;
  strictOwners?: boolean;
  breakGlass?: Partial<Policy['breakGlass']>;
  defaultHooks?: Array<Omit<DefaultHookRule, 'operations'> & { operations?: DefaultHookRule['operations'] }>;
  children?: ChildRuleFile[];
}

export async function loadPolicyFile(file: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new AppError('CONFIG_INVALID', `cannot read policy file ${file}: ${(cause as Error).message}`, { cause, problems: [{ file, message: (cause as Error).message }] });
  }
  return parsePolicy(text, file);
}

export function parsePolicy(text: string, file: string): Policy {
  let docs: YamlDocument[];
  try {
    docs = parseYamlDocuments(text, file);
  } catch (err) {
    if (err instanceof AppError) throw new AppError('CONFIG_INVALID', `invalid policy ${file}`, { cause: err, problems: err.problems });
    throw err;
  }
  if (docs.length !== 1) {
    throw new AppError('CONFIG_INVALID', `invalid policy ${file}`, { problems: [{ file, message: `expected one YAML document, found ${docs.length}` }] });
  }
  const doc = docs[0] as YamlDocument;
  const problems: Problem[] = [];
  const at = (path: string, message: string): Problem => {
    const line = doc.lineOf(path);
    return { file, path: path || '/', message, ...(line === undefined ? {} : { line }) };
  };

  if (!validateSchema(doc.value)) {
    for (const e of validateSchema.errors ?? []) {
      const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params['additionalProperty'])})`
        : e.keyword === 'enum' ? `: ${(e.params['allowedValues'] as unknown[]).join(', ')}` : '';
      problems.push(at(e.instancePath, `${e.message ?? 'is invalid'}${extra}`));
    }
    throw new AppError('CONFIG_INVALID', `invalid policy ${file}`, { problems });
  }
  const raw = doc.value as PolicyFile;

  // Hooks written in the policy obey the same naming rules as hooks in a Machine.
  const hookChecks: Array<[string, { name: string; owner: string }]> = [
    ...(raw.reservedHooks ?? []).map((h, i): [string, { name: string; owner: string }] => [`/reservedHooks/${i}`, h]),
    ...(raw.defaultHooks ?? []).map((r, i): [string, { name: string; owner: string }] => [`/defaultHooks/${i}/hook`, r.hook]),
  ];
  for (const [path, h] of hookChecks) {
    for (const [field, limits] of [['name', { min: 3, max: 256, pattern: { source: HOOK_NAME_PATTERN, re: new RegExp(HOOK_NAME_PATTERN) } }], ['owner', { min: 3, max: 512 }]] as const) {
      for (const p of checkString(`${path}/${field}`, h[field], limits)) problems.push(at(`${path}/${field}`, p.message.replace(`${path}/${field}: `, '')));
    }
  }
  // A default hook for Cluster API kinds becomes an annotation, whose key the API server checks more strictly.
  (raw.defaultHooks ?? []).forEach((r, i) => {
    if (!r.match.kinds.some((k) => carrierFor({ ...k, version: '' })?.format === 'annotations')) return;
    const key = hookAnnotationKey(r.stage, r.hook.name);
    for (const e of annotationKeyErrors(key)) problems.push(at(`/defaultHooks/${i}/hook/name`, `as Cluster API annotation key ${JSON.stringify(key)}: ${e}`));
  });
  const seen = new Map<string, string>();
  (raw.reservedHooks ?? []).forEach((h, i) => {
    const other = seen.get(h.name);
    if (other !== undefined && other !== h.owner) problems.push(at(`/reservedHooks/${i}`, `hook ${h.name} is reserved twice with different owners`));
    seen.set(h.name, h.owner);
  });
  const ruleNames = new Set<string>();
  (raw.defaultHooks ?? []).forEach((r, i) => {
    if (ruleNames.has(r.name)) problems.push(at(`/defaultHooks/${i}/name`, `duplicate default hook rule name ${r.name}`));
    ruleNames.add(r.name);
  });
  const ownerKeys = Object.keys(raw.owners ?? DEFAULT_POLICY.owners);
  for (const [path, message] of childRuleProblems(raw.children ?? [], ownerKeys)) problems.push(at(path, message));
  if (problems.length > 0) throw new AppError('CONFIG_INVALID', `invalid policy ${file}`, { problems });

  return deepFreeze(mergeWithDefaults(raw));
}

/** A field given in the file replaces the default field as a whole; enforcement merges rule by rule. */
function mergeWithDefaults(raw: PolicyFile): Policy {
  const d = DEFAULT_POLICY;
  const owners = raw.owners === undefined ? d.owners : Object.fromEntries(Object.entries(raw.owners).map(([owner, ids]) => [
    owner, { users: ids.users ?? [], groups: ids.groups ?? [], serviceAccounts: ids.serviceAccounts ?? [] },
  ]));
  return structuredClone({
    enforcement: { ...d.enforcement, ...raw.enforcement },
    reservedHooks: raw.reservedHooks ?? d.reservedHooks,
    owners,
    strictOwners: raw.strictOwners ?? d.strictOwners,
    breakGlass: raw.breakGlass === undefined ? d.breakGlass : { users: raw.breakGlass.users ?? [], groups: raw.breakGlass.groups ?? [] },
    defaultHooks: raw.defaultHooks === undefined ? d.defaultHooks
      : raw.defaultHooks.map((r) => ({ ...r, operations: r.operations ?? ['CREATE'] })),
    children: raw.children === undefined ? d.children : raw.children.map(withChildDefaults),
  }) as Policy;
}
