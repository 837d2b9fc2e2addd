// Self-protection of the CRDs that carry hooks (static manifests): the API server prunes every field a version's
// schema lacks, on read and on write, so a schema without the hook fields erases stored hooks at the next unrelated
// write, and a CRD's DELETE deletes every object of it. Refused to all but break-glass; upgrades that keep the fields
// pass. Pure: CEL text and policy specs; static.ts names and binds them. Which CRDs, and the same judgement in
// TypeScript for `audit`: src/core/hook-crds.ts.
import { MACHINE_STAGES } from '../../core/carriers.js';
import { celString, celStringSet } from '../../core/cel/text.js';
import { hookCrds, type HookCrd } from '../../core/hook-crds.js';

const PRESERVE = celString('x-kubernetes-preserve-unknown-fields');
/** A schema node that keeps whatever it is given beyond its listed properties. */
const preserves = (n: string) => `(${PRESERVE} in ${n} && ${n}[${PRESERVE}] == true)`;
/** The node's type is `type`; an untyped node only where it preserves unknown fields (anything is kept there). */
const typed = (n: string, type: string) => `('type' in ${n} ? ${n}.type == ${celString(type)} : ${preserves(n)})`;
const hasProp = (n: string, key: string) => `('properties' in ${n} && ${celString(key)} in ${n}.properties)`;
const prop = (n: string, key: string) => `${n}.properties[${celString(key)}]`;

/** The value at `path` under node n is kept by the schema: declared down the path, or preserved at a parent. */
function keepsAt(n: string, path: readonly string[], leaf: (n: string) => string): string {
  const [key, ...rest] = path;
  if (key === undefined) return leaf(n);
  return `(${hasProp(n, key)} ? ${keepsAt(prop(n, key), rest, leaf)} : ${preserves(n)})`;
}

/** A string field: typed string, or untyped (int-or-string or preserved: a string still passes). */
const stringField = (n: string) => `(!('type' in ${n}) || ${n}.type == 'string')`;
/** Each hook is an object with name and owner strings. */
const hookEntry = (n: string) =>
  `${typed(n, 'object')} && ${['name', 'owner'].map((f) => `(${hasProp(n, f)} ? ${stringField(prop(n, f))} : ${preserves(n)})`).join(' && ')}`;
/** Each stage is an array of hooks. */
const stageList = (n: string) =>
  `${typed(n, 'array')} && ('items' in ${n} ? ${hookEntry(`${n}.items`)} : ${preserves(n)})`;
/** lifecycleHooks: an object whose stages are lists of hooks. */
const lifecycleHooks = (n: string) =>
  `${typed(n, 'object')} && ${MACHINE_STAGES.map((s) => `(${hasProp(n, s)} ? (${stageList(prop(n, s))}) : ${preserves(n)})`).join(' && ')}`;

/** CEL: version `v` of CRD `crd` (object or oldObject) keeps the hooks at root. */
export function versionKeeps(crd: string, v: string, root: readonly string[]): string {
  const schema = `${v}.schema.openAPIV3Schema`;
  return `((has(${crd}.spec.preserveUnknownFields) && ${crd}.spec.preserveUnknownFields == true) || ('schema' in ${v} && 'openAPIV3Schema' in ${v}.schema && ${keepsAt(schema, root, lifecycleHooks)}))`;
}

/** A chain on the stored CRD's name: each list CRD's value, else `otherwise`. */
function byCrd(crds: readonly HookCrd[], value: (root: readonly string[]) => string, otherwise: string): string {
  return crds.reduceRight(
    (rest, c) => (c.root ? `(oldObject.metadata.name == ${celString(c.name)} ? ${value(c.root)} : ${rest})` : rest),
    otherwise,
  );
}

export interface HookSchemaCheck {
  /** The matchCondition: a stored CRD that carries hooks. */
  guarded: string;
  variables: { name: string; expression: string }[];
  /** Holds when the request neither deletes the CRD nor makes a version lose the hooks. */
  keeps: string;
  /** `delete customresourcedefinitions/NAME` or `update …`, for messages. */
  what: string;
  /** Why the request is refused (DELETE or UPDATE), for messages. */
  why: string;
}

/**
 * The check. A version must keep the hooks if it kept them before, and a version new to the CRD must if any old version
 * did (a new storage version would otherwise prune every object written through it); a version that never kept them
 * is the CRD's own history, not hookkeeper's to refuse. Removing a version that objects are stored in is the API
 * server's to refuse (status.storedVersions). Hooks in annotations (Cluster API): only a DELETE can lose them.
 */
export function hookSchemaCheck(crds: readonly HookCrd[] = hookCrds()): HookSchemaCheck {
  const oldKept = byCrd(
    crds,
    (root) => `oldObject.spec.versions.filter(v, ${versionKeeps('oldObject', 'v', root)}).map(v, v.name)`,
    '[]',
  );
  const lost = byCrd(
    crds,
    (root) =>
      `object.spec.versions.filter(v, !${versionKeeps('object', 'v', root)} && (v.name in variables.oldKept || (size(variables.oldKept) > 0 && !oldObject.spec.versions.exists(o, o.name == v.name)))).map(v, v.name)`,
    '[]',
  );
  const path = byCrd(crds, (root) => celString(root.join('.')), "''");
  const what = `request.operation.lowerAscii() + ' customresourcedefinitions/' + oldObject.metadata.name`;
  const why = `request.operation == 'DELETE' ? 'deleting it deletes every ' + oldObject.spec.names.kind + ' with its lifecycle hooks' : 'its version ' + variables.lost.join(', ') + ' would no longer keep ' + ${path} + ' (preDrain and preTerminate lists of {name, owner} strings); the API server prunes the fields a schema lacks and refuses writes that mistype them, so every ' + oldObject.spec.names.kind + ' would lose its hooks, or be stuck with them, at its next write'`;
  return {
    guarded: `oldObject != null && oldObject.metadata.name in ${celStringSet(crds.map((c) => c.name))}`,
    variables: [
      { name: 'oldKept', expression: oldKept },
      { name: 'lost', expression: lost },
    ],
    keeps: `request.operation == 'UPDATE' && size(variables.lost) == 0`,
    what,
    why,
  };
}
