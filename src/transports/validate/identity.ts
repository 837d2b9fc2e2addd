// How `validate` pairs new and old objects: by identity (API group, kind, namespace, name) across every old file or
// stream, never by path; an identity defined twice is an input error naming each place, never a silent pick.
import { isRecord } from '../../core/guards.js';
import type { Policy } from '../../core/policy.js';
import { matchesLabels } from '../../core/selector.js';
import type { GroupVersionKind, Operation } from '../../core/types.js';
import { AppError, type Problem } from '../../errors.js';
import { parseManifests } from '../../infrastructure/manifests/documents.js';
import type { InputFile } from '../../infrastructure/manifests/inputs.js';
import { objectKey, subjectsOf, type Manifest, type Origin, type Subject } from './objects.js';

/** Built-in kinds that have no namespace: -n leaves them alone, as kubectl apply -n does (it asks discovery). */
const CLUSTER_SCOPED: ReadonlySet<string> = new Set(
  [
    ['', 'Namespace'],
    ['', 'Node'],
    ['', 'PersistentVolume'],
    ['rbac.authorization.k8s.io', 'ClusterRole'],
    ['rbac.authorization.k8s.io', 'ClusterRoleBinding'],
    ['apiextensions.k8s.io', 'CustomResourceDefinition'],
    ['apiregistration.k8s.io', 'APIService'],
    ['storage.k8s.io', 'StorageClass'],
    ['scheduling.k8s.io', 'PriorityClass'],
    ['admissionregistration.k8s.io', 'ValidatingWebhookConfiguration'],
    ['admissionregistration.k8s.io', 'MutatingWebhookConfiguration'],
    ['admissionregistration.k8s.io', 'ValidatingAdmissionPolicy'],
    ['admissionregistration.k8s.io', 'ValidatingAdmissionPolicyBinding'],
    ['admissionregistration.k8s.io', 'MutatingAdmissionPolicy'],
    ['admissionregistration.k8s.io', 'MutatingAdmissionPolicyBinding'],
  ].map(([group, kind]) => `${group}/${kind}`),
);

/** `-n`: a manifest without metadata.namespace gets `namespace`, in its identity and in the object the rules see. */
export function withNamespace(s: Subject, namespace: string | undefined): Subject {
  if (namespace === undefined || s.type !== 'manifest' || s.namespace !== undefined) return s;
  if (CLUSTER_SCOPED.has(`${s.gvk.group}/${s.gvk.kind}`)) return s;
  const meta = isRecord(s.object['metadata']) ? s.object['metadata'] : {};
  return { ...s, namespace, object: { ...s.object, metadata: { ...meta, namespace } } };
}

/** The identity as a key (objectKey): the message of a duplicate is built back from it. */
export function identityKey(s: Subject): string | undefined {
  // An object without a name (generateName) is always created: it has no old version to match.
  return s.type === 'manifest' && s.name ? objectKey(s.gvk, s.namespace, s.name) : undefined;
}

export function describePlace(o: Origin): string {
  return `${o.file} (document ${o.document}${o.item === undefined ? '' : `, item ${o.item}`}, line ${o.line})`;
}

/** The problem of an identity (an identityKey) defined at more than one place. */
export function duplicate(key: string, places: readonly Origin[]): Problem {
  const [, kind, namespace, name] = JSON.parse(key) as string[];
  const what = `${kind ?? ''} ${[namespace, name].filter(Boolean).join('/')}`;
  const list = places.map(describePlace);
  const joined = `${list.slice(0, -1).join(', ')} and ${list.at(-1) ?? ''}`;
  return { message: `${what} is defined ${places.length === 2 ? 'twice' : `${places.length} times`}: ${joined}` };
}

/**
 * The old manifests, by identity. Files marked searchOnly (the rest of a repository at --old-ref) are only searched:
 * what is not a Kubernetes object there holds no identity, and a file that is not YAML is listed in `unsearched`.
 */
export class OldIndex {
  private readonly byKey = new Map<string, Array<{ manifest: Manifest; searchOnly: boolean }>>();
  readonly unsearched: string[] = [];
  /** Identities already reported as defined twice: each is one problem, however often it is looked up. */
  private readonly reported = new Set<string>();

  constructor(files: readonly InputFile[], namespace: string | undefined, problems: Problem[]) {
    for (const f of files) {
      for (const s of this.subjects(f, problems)) {
        const m = withNamespace(s, namespace);
        const key = identityKey(m);
        if (key === undefined || m.type !== 'manifest') continue;
        const entry = { manifest: m, searchOnly: f.searchOnly === true };
        const list = this.byKey.get(key);
        if (list) list.push(entry);
        else this.byKey.set(key, [entry]);
      }
    }
  }

  private subjects(f: InputFile, problems: Problem[]): Subject[] {
    try {
      return subjectsOf(f.file, parseManifests(f.text, f.file), f.searchOnly ? [] : problems);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (f.searchOnly) this.unsearched.push(f.file);
      else problems.push(...(err.problems.length > 0 ? err.problems : [{ file: f.file, message: err.message }]));
      return [];
    }
  }

  /** The old version of the object with this identity; one defined more than once is a problem, not a pick. */
  find(key: string, problems: Problem[]): Manifest | undefined {
    const list = this.byKey.get(key);
    if (!list) return undefined;
    if (list.length > 1) {
      if (!this.reported.has(key))
        problems.push(
          duplicate(
            key,
            list.map((e) => e.manifest.origin),
          ),
        );
      this.reported.add(key);
      return undefined;
    }
    return list[0]?.manifest;
  }

  /** Old objects the new ones lack, from the old set proper (not searchOnly files). */
  deletions(seen: ReadonlySet<string>, problems: Problem[]): Manifest[] {
    const out: Manifest[] = [];
    for (const [key, list] of this.byKey) {
      if (seen.has(key) || list.every((e) => e.searchOnly)) continue;
      const found = this.find(key, problems);
      if (found) out.push(found);
    }
    return out;
  }
}

/**
 * Why a manifest without a namespace may be judged otherwise in the cluster: each policy rule that selects its kind
 * and labels in some namespaces only (the API server always sends a namespace, so the cluster decides them).
 */
export function undecidedWithoutNamespace(
  policy: Policy,
  gvk: GroupVersionKind,
  operation: Operation,
  labels: unknown,
): string[] {
  const out: string[] = [];
  const selects = (match: Policy['defaultHooks'][number]['match']): boolean =>
    (match.namespaces ?? []).length > 0 &&
    match.kinds.some((k) => k.group === gvk.group && k.kind === gvk.kind) &&
    matchesLabels(match.labelSelector, labels);
  const note = (what: string, namespaces: readonly string[] | undefined): string =>
    `no namespace: ${what} (namespaces ${(namespaces ?? []).join(', ')}) could not be decided; give -n/--namespace, as kubectl apply -n, or set metadata.namespace`;
  for (const rule of policy.defaultHooks)
    if (selects(rule.match) && (rule.operations as readonly string[]).includes(operation))
      out.push(note(`default hook rule "${rule.name}"`, rule.match.namespaces));
  for (const rule of policy.children)
    if (selects(rule.match)) out.push(note(`child rule "${rule.name}"`, rule.match.namespaces));
  return out;
}
