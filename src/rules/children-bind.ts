// Which child rules bind an object to which parent: the parent's name (label, annotation or template), its
// namespace, the key its looked-up facts are filed under, and the child's ownerReferences read safely.
import { isRecord, metadata, quote, stringEntriesOf } from '../core/guards.js';
import type { ChildRule, ParentNameSource, Policy } from '../core/policy.js';
import { matchesObject } from '../core/selector.js';
import type { KubeObject, ReviewInput } from '../core/types.js';

/**
 * Name templates: literal text with placeholders ${label:KEY}, ${annotation:KEY}, ${metadata.name} and
 * ${metadata.namespace}, all read from the child. Object names cannot contain "$", so no escape is needed.
 */
export type TemplatePart =
  { literal: string } | { label: string } | { annotation: string } | { field: 'name' | 'namespace' };

export function parseNameTemplate(template: string): { parts: TemplatePart[] } | { error: string } {
  const parts: TemplatePart[] = [];
  let rest = template;
  while (rest !== '') {
    const at = rest.indexOf('$');
    if (at === -1) {
      parts.push({ literal: rest });
      break;
    }
    if (at > 0) parts.push({ literal: rest.slice(0, at) });
    const end = rest.indexOf('}', at);
    if (rest[at + 1] !== '{' || end === -1)
      return { error: `"$" at ${quote(rest.slice(at))} does not start a \${...} placeholder` };
    const body = rest.slice(at + 2, end);
    if (body.startsWith('label:') && body.length > 6) parts.push({ label: body.slice(6) });
    else if (body.startsWith('annotation:') && body.length > 11) parts.push({ annotation: body.slice(11) });
    else if (body === 'metadata.name') parts.push({ field: 'name' });
    else if (body === 'metadata.namespace') parts.push({ field: 'namespace' });
    else
      return {
        error: `unknown placeholder \${${body}}: use \${label:KEY}, \${annotation:KEY}, \${metadata.name} or \${metadata.namespace}`,
      };
    rest = rest.slice(end + 1);
  }
  // A literal alone is allowed: every child then belongs to one parent (a cluster-scoped singleton, say).
  return { parts };
}

/** The parent's name for a child, or undefined when the child does not name one (a label it lacks). */
export function resolveParentName(source: ParentNameSource, obj: KubeObject, namespace: string): string | undefined {
  const meta = metadata(obj);
  const labels = stringEntriesOf(meta['labels']);
  const annotations = stringEntriesOf(meta['annotations']);
  if ('label' in source) return labels[source.label] || undefined;
  if ('annotation' in source) return annotations[source.annotation] || undefined;
  const parsed = parseNameTemplate(source.template);
  if ('error' in parsed) return undefined; // the policy loader refuses such templates
  let out = '';
  for (const part of parsed.parts) {
    const value =
      'literal' in part
        ? part.literal
        : 'label' in part
          ? labels[part.label]
          : 'annotation' in part
            ? annotations[part.annotation]
            : part.field === 'name'
              ? typeof meta['name'] === 'string'
                ? meta['name']
                : undefined
              : namespace;
    // A generateName child has no name yet when the mutating webhook sees it.
    if (value === undefined || value === '') return undefined;
    out += value;
  }
  return out;
}

/** The field a parent's name was read from, for messages. */
export function sourcePath(source: ParentNameSource): string {
  if ('label' in source) return `metadata.labels[${source.label}]`;
  if ('annotation' in source) return `metadata.annotations[${source.annotation}]`;
  return 'metadata.ownerReferences';
}

/** What an API path segment can hold (the API server's path-segment name rule); anything else names no object. */
export function isObjectName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name !== '.' && name !== '..' && !/[/%]/.test(name);
}

export function parentKey(apiVersion: string, kind: string, namespace: string, name: string): string {
  return `${apiVersion}/${kind}/${namespace}/${name}`;
}

export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

export interface ChildBinding {
  rule: ChildRule;
  /** The child's namespace; '' for a cluster-scoped child. */
  childNamespace: string;
  /** The parent's name, read from `source`. */
  name: string;
  source: string;
  /** '' for a cluster-scoped parent. */
  parentNamespace: string;
  /** Key of the parent's fact in ReviewInput.context.parents. */
  key: string;
  /** Why the parent cannot exist: a cluster-scoped child cannot have a namespaced owner; a name no object can have. */
  problem?: 'scope' | 'name';
}

export function childNamespace(input: ReviewInput, obj: KubeObject): string {
  const ns = input.namespace ?? metadata(obj)['namespace'];
  return typeof ns === 'string' ? ns : '';
}

/** Every child rule the object matches and that names a parent, in policy order. */
export function childBindings(policy: Policy, input: ReviewInput, obj: KubeObject): ChildBinding[] {
  const out: ChildBinding[] = [];
  const namespace = childNamespace(input, obj);
  for (const rule of policy.children) {
    if (!matchesObject(rule.match, input.kind, namespace, obj)) continue;
    const name = resolveParentName(rule.parent.nameFrom, obj, namespace);
    if (name === undefined) continue;
    const parentNamespace = rule.parent.namespaced ? namespace : '';
    const binding: ChildBinding = {
      rule,
      childNamespace: namespace,
      name,
      source: sourcePath(rule.parent.nameFrom),
      parentNamespace,
      key: parentKey(rule.parent.apiVersion, rule.parent.kind, parentNamespace, name),
    };
    if (rule.parent.namespaced && namespace === '') binding.problem = 'scope';
    else if (!isObjectName(name)) binding.problem = 'name';
    out.push(binding);
  }
  return out;
}

/** Does any child rule select this kind? A cheap test before cloning an object. */
export function hasChildRules(policy: Policy, input: ReviewInput): boolean {
  return policy.children.some((r) =>
    r.match.kinds.some((k) => k.group === input.kind.group && k.kind === input.kind.kind),
  );
}

export interface OwnerRef {
  index: number;
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
}

/** The child's ownerReferences as written; entries that are not objects are skipped (the API server refuses them). */
export function ownerRefs(obj: KubeObject): OwnerRef[] | undefined {
  const refs = metadata(obj)['ownerReferences'];
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs)) return undefined;
  const out: OwnerRef[] = [];
  refs.forEach((r: unknown, index) => {
    if (!isRecord(r)) return;
    const str = (k: string): string => (typeof r[k] === 'string' ? r[k] : '');
    out.push({
      index,
      apiVersion: str('apiVersion'),
      kind: str('kind'),
      name: str('name'),
      uid: str('uid'),
      controller: r['controller'] === true,
    });
  });
  return out;
}

/** The reference to this binding's parent: by uid, or by group, kind and name (any version of the parent). */
export function findParentRef(refs: readonly OwnerRef[], b: ChildBinding, uid?: string): OwnerRef | undefined {
  const group = apiGroupOf(b.rule.parent.apiVersion);
  return refs.find(
    (r) =>
      (uid !== undefined && r.uid === uid) ||
      (apiGroupOf(r.apiVersion) === group && r.kind === b.rule.parent.kind && r.name === b.name),
  );
}

export function describeParent(b: ChildBinding): string {
  return `${b.rule.parent.kind} ${quote(b.name)}${b.parentNamespace === '' ? '' : ` in namespace ${quote(b.parentNamespace)}`}`;
}

export function describeChild(input: ReviewInput, obj: KubeObject): string {
  const name = metadata(obj)['name'];
  const generate = metadata(obj)['generateName'];
  const shown =
    typeof name === 'string' && name !== ''
      ? quote(name)
      : typeof generate === 'string'
        ? `${quote(`${generate}*`)}`
        : '(unnamed)';
  return `${input.kind.kind} ${shown}`;
}

export function finalizersOf(obj: KubeObject | null): string[] | undefined {
  const f = metadata(obj)['finalizers'];
  if (f === undefined || f === null) return [];
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : undefined;
}
