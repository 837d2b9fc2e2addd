// The policy file as checked so far: its value, where each problem goes, and which fields passed the schema. Each
// semantic check reads a field only when it passed (present, no schema error at or below it), so schema problems do
// not hide the semantic ones and every problem is fixed in one go.
import type { DefaultHookRule, ImpliedOwner, OwnerIdentities, Policy } from '../../core/policy.js';
import type { Problem } from '../../errors.js';
import type { ChildRuleFile } from './children.js';
import type { CheckedDocument } from './document.js';
import { toKeys } from './yaml.js';

/** The file's fields as written: each one given replaces the default (src/infrastructure/config/merge-defaults.ts). */
export interface PolicyFile {
  enforcement?: Partial<Policy['enforcement']>;
  reservedHooks?: Policy['reservedHooks'];
  owners?: Record<string, Partial<OwnerIdentities>>;
  impliedOwners?: Policy['impliedOwners'];
  strictOwners?: boolean;
  unverifiedRemoval?: Policy['unverifiedRemoval'];
  wildcardGrants?: Policy['wildcardGrants'];
  breakGlass?: Partial<Policy['breakGlass']>;
  defaultHooks?: Array<Omit<DefaultHookRule, 'operations'> & { operations?: DefaultHookRule['operations'] }>;
  quorumHooks?: Policy['quorumHooks'];
  children?: ChildRuleFile[];
  maxHooksPerStage?: number;
  migration?: Partial<Policy['migration']>;
  machineControllers?: Partial<Policy['machineControllers']>;
}

export type FileDefaultHook = NonNullable<PolicyFile['defaultHooks']>[number];

export interface CheckedPolicy {
  checked: CheckedDocument;
  raw: PolicyFile;
  /** Whether the field at a JSON pointer is present and passed the schema. */
  schemaValid: (pointer: string) => boolean;
  /** The value at a JSON pointer, or undefined. */
  valueAt: (pointer: string) => unknown;
  /** A problem at a JSON pointer, with its line. */
  at: (pointer: string, message: string) => Problem;
  /** The items of the list that passed the schema as a list, with their indexes. */
  reservedHooks: Array<[number, { name: string; owner: string }]>;
  defaultHooks: Array<[number, FileDefaultHook]>;
  impliedOwners: Array<[number, ImpliedOwner]>;
  children: ChildRuleFile[];
}

export function checkedPolicy(checked: CheckedDocument): CheckedPolicy {
  const { doc } = checked;
  const schemaPaths = checked.schemaErrors.map((e) => e.pointer);
  const valueAt = (pointer: string): unknown => valueIn(doc.value, pointer);
  const items = <T>(path: string): Array<[number, T]> => {
    const list = valueAt(path);
    return Array.isArray(list) && !schemaPaths.includes(path) ? list.map((v, i): [number, T] => [i, v as T]) : [];
  };
  return {
    checked,
    raw: typeof doc.value === 'object' && doc.value !== null ? doc.value : {},
    schemaValid: (path) =>
      valueAt(path) !== undefined && !schemaPaths.some((p) => p === path || p.startsWith(`${path}/`)),
    valueAt,
    at: checked.at,
    reservedHooks: items('/reservedHooks'),
    defaultHooks: items('/defaultHooks'),
    impliedOwners: items('/impliedOwners'),
    children: items<ChildRuleFile>('/children').map(([, r]) => r),
  };
}

/** The value at a JSON pointer, or undefined when a step is missing or not a container. */
function valueIn(root: unknown, pointer: string): unknown {
  let node = root;
  for (const key of toKeys(pointer)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}
