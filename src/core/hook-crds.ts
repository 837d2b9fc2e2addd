// The CRDs that carry hooks, and whether a version's schema keeps them: the API server prunes every field a schema
// lacks, so a version without the hook fields erases stored hooks. `audit` judges the CRDs as stored with
// versionsWithoutHooks; src/compilers/native/hook-schema.ts writes the same judgement in CEL (held together by
// test/native/hook-schema.test.ts).
import { CARRIERS, MACHINE_STAGES } from './carriers.js';
import type { HookCarrier } from './carrier-types.js';
import { KNOWN_RESOURCES } from './resources.js';

/** A CRD that carries hooks: its name, and where its schema keeps them (list carriers only; annotations are metadata). */
export interface HookCrd {
  name: string;
  kind: string;
  /** Property names from the schema's root to the lifecycleHooks object, or undefined: hooks in annotations. */
  root?: readonly string[];
}

/** The carriers' CRDs, by the API resource each is served as (resources.ts). */
export function hookCrds(carriers: readonly HookCarrier[] = CARRIERS): HookCrd[] {
  const out: HookCrd[] = [];
  for (const c of carriers) {
    const r = KNOWN_RESOURCES.find((k) => k.group === c.group && k.kind === c.kind);
    if (!r) continue;
    const name = `${r.plural}.${r.group}`;
    if (out.some((o) => o.name === name)) continue;
    out.push({ name, kind: c.kind, ...(c.format === 'list' ? { root: c.root } : {}) });
  }
  return out;
}

type SchemaNode = Record<string, unknown>;
const isNode = (v: unknown): v is SchemaNode => typeof v === 'object' && v !== null && !Array.isArray(v);
const preservesNode = (n: SchemaNode) => n['x-kubernetes-preserve-unknown-fields'] === true;
const typedNode = (n: SchemaNode, type: string) => ('type' in n ? n['type'] === type : preservesNode(n));
function propNode(n: SchemaNode, key: string): SchemaNode | undefined {
  const props = n['properties'];
  return isNode(props) && isNode(props[key]) ? props[key] : undefined;
}
function keepsNode(n: SchemaNode, path: readonly string[], leaf: (n: SchemaNode) => boolean): boolean {
  const [key, ...rest] = path;
  if (key === undefined) return leaf(n);
  const next = propNode(n, key);
  return next ? keepsNode(next, rest, leaf) : preservesNode(n);
}
const entryNode = (n: SchemaNode) =>
  typedNode(n, 'object') &&
  ['name', 'owner'].every((f) => {
    const p = propNode(n, f);
    return p ? !('type' in p) || p['type'] === 'string' : preservesNode(n);
  });
const listNode = (n: SchemaNode) =>
  typedNode(n, 'array') && (isNode(n['items']) ? entryNode(n['items']) : preservesNode(n));
const hooksNode = (n: SchemaNode) =>
  typedNode(n, 'object') &&
  MACHINE_STAGES.every((s) => {
    const p = propNode(n, s);
    return p ? listNode(p) : preservesNode(n);
  });

/** The names of the CRD's versions whose schema does not keep the hooks at root. */
export function versionsWithoutHooks(crd: unknown, root: readonly string[]): string[] {
  const spec = isNode(crd) && isNode(crd['spec']) ? crd['spec'] : {};
  if (spec['preserveUnknownFields'] === true) return [];
  const versions = Array.isArray(spec['versions']) ? spec['versions'].filter(isNode) : [];
  return versions
    .filter((v) => {
      const schema = isNode(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
      return !(isNode(schema) && keepsNode(schema, root, hooksNode));
    })
    .map((v) => String(v['name']));
}
