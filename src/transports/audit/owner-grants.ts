// The audit's view of hook-owner grants (listed once per run: src/infrastructure/kube/rbac-snapshot.ts, into the same OwnerGrants
// the webhook's index keeps), so unprotected-owner judges from the grants, and the report lists each audited owner
// with the identities RBAC lets act for it.
import type { Hook } from '../../core/carriers.js';
import { WILDCARD_PROBE_OWNER } from '../../core/ownership.js';
import type { Ownership } from '../../core/types.js';
import type { OwnerGrants, OwnerGrantSubject } from '../../infrastructure/kube/owner-grants.js';

/** The ownership fact of one audited object: its hooks' owners that a bound grant protects in its namespace. */
export function auditOwnership(grants: OwnerGrants, hooks: readonly Hook[], namespace: string | undefined): Ownership {
  const granted = new Set<string>();
  for (const h of hooks) if (h.owner !== '' && grants.protectedIn(h.owner, namespace)) granted.add(h.owner);
  return { granted, access: {}, grantsKnown: true };
}

/** The owners seen on audited hooks, and the namespaces they were seen in (undefined: a cluster-scoped object). */
export type SeenOwners = Map<string, Set<string | undefined>>;

export function noteOwners(seen: SeenOwners, hooks: readonly Hook[], namespace: string | undefined): void {
  for (const h of hooks) {
    if (h.owner === '') continue;
    let namespaces = seen.get(h.owner);
    if (!namespaces) seen.set(h.owner, (namespaces = new Set()));
    namespaces.add(namespace);
  }
}

function subjectName(s: OwnerGrantSubject): string {
  return `${s.kind} ${s.namespace ? `${s.namespace}/` : ''}${s.name}`;
}

/**
 * One note per audited owner: the subjects RBAC lets act for it through a grant naming it (where a Role grants it, in
 * which namespace), then how many hold a grant of every owner (cluster-admin's wildcard among them).
 */
export function ownerListing(grants: OwnerGrants, seen: SeenOwners): string[] {
  const out: string[] = [];
  for (const owner of [...seen.keys()].sort()) {
    const named = new Set<string>();
    const every = new Set<string>();
    for (const ns of seen.get(owner) ?? []) {
      for (const s of grants.subjectsFor(owner, ns)) {
        const where = s.binding.namespace ? ` (in ${s.binding.namespace})` : '';
        (s.allNames ? every : named).add(`${subjectName(s)}${s.allNames ? '' : where}`);
      }
    }
    const list = named.size > 0 ? [...named].sort().join(', ') : 'no grant names it';
    out.push(
      `hook owner ${JSON.stringify(owner)}: RBAC lets act for it: ${list}` +
        (every.size > 0 ? `; and ${every.size} subject(s) granted every owner` : ''),
    );
  }
  return out;
}

/**
 * One note naming every subject whose RBAC lets it act for every hook owner (a rule without resourceNames, or one
 * naming the reserved probe owner: what the webhook's probe sees), cluster-wide or in a namespace the audited hooks
 * live in, with the binding and role that say so: who could remove hooks through rights that are not ownership.
 */
export function wildcardListing(grants: OwnerGrants, seen: SeenOwners): string {
  const namespaces = new Set<string | undefined>([undefined]);
  for (const ns of seen.values()) for (const n of ns) namespaces.add(n);
  const holders = new Set<string>();
  for (const ns of namespaces) {
    for (const s of grants.subjectsFor(WILDCARD_PROBE_OWNER, ns)) {
      const binding = `${s.binding.kind} ${s.binding.namespace ? `${s.binding.namespace}/` : ''}${s.binding.name}`;
      holders.add(`${subjectName(s)} (${binding}, ${s.role.kind} ${s.role.name})`);
    }
  }
  const list = holders.size > 0 ? [...holders].sort().join(', ') : 'none';
  return (
    'wildcard RBAC rights over hook owners (not ownership: their removals are refused under wildcardGrants: deny, ' +
    `warned under warn; break-glass is the audited way): ${list}`
  );
}
