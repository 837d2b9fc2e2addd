// Which hook owners RBAC grants, from Roles, ClusterRoles and their bindings as they come and go: the data side of
// rbac-index.ts (which feeds it from watches), kept free of I/O so every case is a table test. A grant is a rule
// allowing verb `remove` on `hookowners` in `hookkeeper.io` (each possibly "*"); its resourceNames are the owners.
import type { GrantSubjectFact } from '../../core/explain/model.js';
import { isRecord } from '../../core/guards.js';
import type { ResourceRef } from '../../core/resources.js';

export const HOOK_OWNERS_GROUP = 'hookkeeper.io';
export const HOOK_OWNERS_RESOURCE = 'hookowners';
export const HOOK_OWNERS_VERB = 'remove';

export type RoleKind = 'ClusterRole' | 'Role';
export type BindingKind = 'ClusterRoleBinding' | 'RoleBinding';

const rbac = (plural: string, namespaced: boolean): ResourceRef => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural,
  namespaced,
});

/** The four collections grants come from: the webhook's index watches them, the audit lists them once. */
export const GRANT_COLLECTIONS: ReadonlyArray<
  { resource: ResourceRef } & ({ role: RoleKind } | { binding: BindingKind })
> = [
  { resource: rbac('clusterroles', false), role: 'ClusterRole' },
  { resource: rbac('roles', true), role: 'Role' },
  { resource: rbac('clusterrolebindings', false), binding: 'ClusterRoleBinding' },
  { resource: rbac('rolebindings', true), binding: 'RoleBinding' },
];

/**
 * One subject that may act for an owner, and the RBAC objects that say so (the audit's listing, explain's removers):
 * the core's fact (src/core/explain/model.ts), with the kinds of role and binding narrowed.
 */
export interface OwnerGrantSubject extends GrantSubjectFact {
  binding: { kind: BindingKind; name: string; namespace?: string };
  role: { kind: RoleKind; name: string; namespace?: string };
}

interface RoleGrant {
  names: ReadonlySet<string>;
  allNames: boolean;
}

interface BindingEntry {
  kind: BindingKind;
  name: string;
  /** undefined: a ClusterRoleBinding, which grants in every namespace. */
  namespace: string | undefined;
  roleKey: string;
  role: { kind: RoleKind; name: string; namespace?: string };
  subjects: ReadonlyArray<{ kind: string; name: string; namespace?: string }>;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const matches = (list: readonly string[], want: string): boolean => list.includes(want) || list.includes('*');

/** What a Role's or ClusterRole's rules grant on hookowners (an aggregated ClusterRole's .rules, as stored). */
export function ownerGrantsOf(rules: unknown): RoleGrant | undefined {
  if (!Array.isArray(rules)) return undefined;
  const names = new Set<string>();
  let allNames = false;
  for (const rule of rules) {
    if (!isRecord(rule)) continue;
    if (!matches(strings(rule['apiGroups']), HOOK_OWNERS_GROUP)) continue;
    if (!matches(strings(rule['resources']), HOOK_OWNERS_RESOURCE)) continue;
    if (!matches(strings(rule['verbs']), HOOK_OWNERS_VERB)) continue;
    // RBAC: a rule without resourceNames allows every name.
    const listed = strings(rule['resourceNames']);
    if (listed.length === 0) allNames = true;
    for (const n of listed) if (n !== '') names.add(n);
  }
  return names.size > 0 || allNames ? { names, allNames } : undefined;
}

function meta(obj: unknown): { name: string; namespace: string | undefined } | undefined {
  const m = isRecord(obj) && isRecord(obj['metadata']) ? obj['metadata'] : undefined;
  if (!m || typeof m['name'] !== 'string') return undefined;
  const ns = typeof m['namespace'] === 'string' && m['namespace'] !== '' ? m['namespace'] : undefined;
  return { name: m['name'], namespace: ns };
}

const roleKey = (kind: RoleKind, name: string, namespace?: string): string => `${kind}/${namespace ?? ''}/${name}`;
const bindingKey = (kind: BindingKind, name: string, namespace?: string): string =>
  `${kind}/${namespace ?? ''}/${name}`;

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}
function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}

/**
 * The index. Each event costs the size of the object it carries; a question costs the number of roles naming
 * that owner (or naming every owner) and their bindings: never a scan of all roles or bindings.
 */
export class OwnerGrants {
  private readonly roles = new Map<string, RoleGrant>();
  /** owner -> keys of roles naming it in resourceNames. */
  private readonly byOwner = new Map<string, Set<string>>();
  /** Keys of roles granting every owner (a rule without resourceNames). */
  private readonly allNameRoles = new Set<string>();
  private readonly bindings = new Map<string, BindingEntry>();
  /** role key -> keys of bindings (with at least one subject) that reference it. */
  private readonly bindingsByRole = new Map<string, Set<string>>();

  upsertRole(kind: RoleKind, obj: unknown): void {
    const m = meta(obj);
    if (!m) return;
    const key = roleKey(kind, m.name, kind === 'Role' ? m.namespace : undefined);
    this.dropRole(key);
    const grant = ownerGrantsOf(isRecord(obj) ? obj['rules'] : undefined);
    if (!grant) return;
    this.roles.set(key, grant);
    for (const n of grant.names) addTo(this.byOwner, n, key);
    if (grant.allNames) this.allNameRoles.add(key);
  }

  deleteRole(kind: RoleKind, obj: unknown): void {
    const m = meta(obj);
    if (m) this.dropRole(roleKey(kind, m.name, kind === 'Role' ? m.namespace : undefined));
  }

  upsertBinding(kind: BindingKind, obj: unknown): void {
    const m = meta(obj);
    if (!m || !isRecord(obj)) return;
    const namespace = kind === 'RoleBinding' ? m.namespace : undefined;
    const key = bindingKey(kind, m.name, namespace);
    this.dropBinding(key);
    const ref = isRecord(obj['roleRef']) ? obj['roleRef'] : {};
    const refKind = ref['kind'];
    const refName = ref['name'];
    if (typeof refName !== 'string' || (refKind !== 'ClusterRole' && refKind !== 'Role')) return;
    // A ClusterRoleBinding can only reference a ClusterRole; a RoleBinding's Role is in its own namespace.
    if (kind === 'ClusterRoleBinding' && refKind !== 'ClusterRole') return;
    const roleNs = refKind === 'Role' ? namespace : undefined;
    const subjects = (Array.isArray(obj['subjects']) ? obj['subjects'] : []).flatMap((s) =>
      isRecord(s) && typeof s['kind'] === 'string' && typeof s['name'] === 'string'
        ? [
            {
              kind: s['kind'],
              name: s['name'],
              ...(typeof s['namespace'] === 'string' && s['namespace'] !== '' ? { namespace: s['namespace'] } : {}),
            },
          ]
        : [],
    );
    // "Bound to at least one subject": a binding without subjects grants nobody.
    if (subjects.length === 0) return;
    const rk = roleKey(refKind, refName, roleNs);
    this.bindings.set(key, {
      kind,
      name: m.name,
      namespace,
      roleKey: rk,
      role: { kind: refKind, name: refName, ...(roleNs ? { namespace: roleNs } : {}) },
      subjects,
    });
    addTo(this.bindingsByRole, rk, key);
  }

  deleteBinding(kind: BindingKind, obj: unknown): void {
    const m = meta(obj);
    if (m) this.dropBinding(bindingKey(kind, m.name, kind === 'RoleBinding' ? m.namespace : undefined));
  }

  /**
   * Whether a role naming `owner` is bound to someone, cluster-wide or in `namespace` (undefined: a cluster-scoped
   * object, for which only cluster-wide grants count). Rules granting every owner do not count: see README.
   */
  protectedIn(owner: string, namespace: string | undefined): boolean {
    for (const rk of this.byOwner.get(owner) ?? []) {
      for (const bk of this.bindingsByRole.get(rk) ?? []) {
        const b = this.bindings.get(bk);
        if (b && (b.namespace === undefined || b.namespace === namespace)) return true;
      }
    }
    return false;
  }

  /** Every subject RBAC lets act for `owner` in `namespace`: named grants first, then grants of every owner. */
  subjectsFor(owner: string, namespace: string | undefined): OwnerGrantSubject[] {
    const out: OwnerGrantSubject[] = [];
    const collect = (rks: Iterable<string>, allNames: boolean): void => {
      for (const rk of rks) {
        for (const bk of this.bindingsByRole.get(rk) ?? []) {
          const b = this.bindings.get(bk);
          if (!b || (b.namespace !== undefined && b.namespace !== namespace)) continue;
          const binding = { kind: b.kind, name: b.name, ...(b.namespace ? { namespace: b.namespace } : {}) };
          for (const s of b.subjects) out.push({ ...s, binding, role: b.role, allNames });
        }
      }
    };
    if (owner !== '') collect(this.byOwner.get(owner) ?? [], false);
    collect(this.allNameRoles, true);
    return out;
  }

  /** Owners some role names, bound or not (for the audit's listing and for tests). */
  namedOwners(): string[] {
    return [...this.byOwner.keys()].sort();
  }

  private dropRole(key: string): void {
    const old = this.roles.get(key);
    if (!old) return;
    this.roles.delete(key);
    for (const n of old.names) removeFrom(this.byOwner, n, key);
    this.allNameRoles.delete(key);
  }

  private dropBinding(key: string): void {
    const old = this.bindings.get(key);
    if (!old) return;
    this.bindings.delete(key);
    removeFrom(this.bindingsByRole, old.roleKey, key);
  }
}
