// Quorum protection: a quorum hook (policy quorumHooks) holds a control-plane Machine's deletion until its etcd
// member is safely gone. Two control-plane Machines of one cluster deleting without it can lose quorum, so the
// admission rule, the audit, explain and the metrics all read a cluster's control-plane Machines through this file.
import { gvkOf } from './api-version.js';
import { carrierFor, wellFormed, type Hook } from './carriers.js';
import { isDeleting, isRecord, metadata } from './guards.js';
import { ownedChanges, registeredActor } from './ownership.js';
import type { LabelSelector, Policy, QuorumHook } from './policy.js';
import { KNOWN_RESOURCES } from './resources.js';
import { matchesObject } from './selector.js';
import type { GroupVersionKind, KubeObject, ReviewInput } from './types.js';

/**
 * The annotation by which a request removing a quorum hook says it knows which other control-plane Machines of the
 * cluster are deleting without it: their names, comma-separated (docs/ownership.md#quorum-protection).
 */
export const QUORUM_ACK_ANNOTATION = 'hookkeeper.io/quorum-acknowledged';

/**
 * Most Machines one lookup lists: a cluster's control plane is 3 or 5, twice that during a replacement. More than
 * this is refused as 'TooMany' rather than judged from part of the cluster.
 */
export const MAX_QUORUM_MACHINES = 100;

/** One control-plane Machine as a quorum hook sees it. */
export interface QuorumMember {
  name: string;
  namespace: string;
  /** The cluster label's value; '' when the Machine has none (then its namespace is its cluster). */
  cluster: string;
  deleting: boolean;
  /** Carries one of the quorum hook's names at its stage. */
  protected: boolean;
}

/** A cluster's control-plane Machines deleting without quorum protection (two or more: a quorum at risk). */
export interface QuorumCluster {
  /** The quorum hook's name in the policy. */
  quorum: string;
  namespace: string;
  /** The cluster label's value; '' when the Machines have none. */
  cluster: string;
  /** The deleting Machines without the hook, sorted. */
  machines: string[];
}

/** The first quorum hook of the policy that selects this object (a Machine of a selected kind and labels). */
export function quorumHookOf(
  policy: Policy,
  gvk: GroupVersionKind,
  object: KubeObject,
  namespace?: string,
): QuorumHook | undefined {
  return policy.quorumHooks.find((q) => matchesObject(q.match, gvk, namespace, object));
}

/** Whether the object carries one of the quorum hook's names at its stage (any owner: the name is what holds). */
export function carriesQuorumHook(q: QuorumHook, gvk: GroupVersionKind, object: KubeObject | null): boolean {
  const carrier = carrierFor(gvk);
  if (!carrier || object === null) return false;
  return wellFormed(carrier.read(object).hooks).some((h) => h.stage === q.stage && q.hooks.includes(h.name));
}

export function memberOf(q: QuorumHook, gvk: GroupVersionKind, object: KubeObject): QuorumMember {
  const meta = metadata(object);
  const labels = isRecord(meta['labels']) ? meta['labels'] : {};
  const cluster = labels[q.clusterLabel];
  return {
    name: typeof meta['name'] === 'string' ? meta['name'] : '',
    namespace: typeof meta['namespace'] === 'string' ? meta['namespace'] : '',
    cluster: typeof cluster === 'string' ? cluster : '',
    deleting: isDeleting(object),
    protected: carriesQuorumHook(q, gvk, object),
  };
}

/** The same cluster under one quorum hook: namespace and cluster label value. */
export function sameCluster(a: QuorumMember, b: QuorumMember): boolean {
  return a.namespace === b.namespace && a.cluster === b.cluster;
}

/**
 * Every cluster with a control-plane Machine deleting without quorum protection, from the Machines the caller read
 * (the audit's lists), each with the quorum hook that selected it: one entry per quorum hook and cluster, in a stable
 * order.
 */
export function unprotectedClusters(seen: ReadonlyArray<{ quorum: string; member: QuorumMember }>): QuorumCluster[] {
  const groups = new Map<string, QuorumCluster>();
  for (const { quorum, member: m } of seen) {
    if (!m.deleting || m.protected) continue;
    const key = JSON.stringify([quorum, m.namespace, m.cluster]);
    const group = groups.get(key) ?? { quorum, namespace: m.namespace, cluster: m.cluster, machines: [] };
    group.machines.push(m.name);
    groups.set(key, group);
  }
  const order = (g: QuorumCluster): string => [g.quorum, g.namespace, g.cluster].join('\0');
  return [...groups.values()]
    .map((g) => ({ ...g, machines: [...g.machines].sort() }))
    .sort((a, b) => order(a).localeCompare(order(b)));
}

/** A request removing a quorum hook: the protection, the Machine as stored, and the quorum hooks it removes. */
export interface QuorumRemoval {
  quorum: QuorumHook;
  member: QuorumMember;
  /** The removed quorum hooks, each with the owner the policy implies for it (src/core/implied-owner.ts). */
  removed: Hook[];
}

/**
 * An UPDATE of a Machine a quorum hook selects (by the stored object) whose stored object carries one of its hooks at
 * its stage and whose new object carries none. A re-owning keeps the name, so it keeps the protection.
 */
export function quorumRemoval(policy: Policy, input: ReviewInput): QuorumRemoval | undefined {
  if (input.operation !== 'UPDATE' || input.object === null || input.oldObject === null) return undefined;
  if (policy.quorumHooks.length === 0 || policy.enforcement['quorum-protection'] === 'off') return undefined;
  const carrier = carrierFor(input.kind);
  if (!carrier?.live) return undefined;
  const q = quorumHookOf(policy, input.kind, input.oldObject, input.namespace);
  if (!q || !carriesQuorumHook(q, input.kind, input.oldObject) || carriesQuorumHook(q, input.kind, input.object))
    return undefined;
  const removed = ownedChanges(policy, carrier, carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks)
    .filter((c) => c.now === undefined && c.old.stage === q.stage && q.hooks.includes(c.old.name))
    .map((c) => c.old);
  return { quorum: q, member: memberOf(q, input.kind, input.oldObject), removed };
}

/** The one LIST serve sends for a review: the cluster's control-plane Machines, at most `limit`. */
export interface QuorumLookup {
  /** The collection, /apis/<group>/<version>/namespaces/<namespace>/machines. */
  path: string;
  labelSelector: string;
  limit: number;
  /** <quorum>/<namespace>/<cluster>, for logs. */
  key: string;
}

/** A label selector in the API's query syntax (label keys and values need no escaping). */
export function selectorString(selector: LabelSelector | undefined): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) out.push(`${k}=${v}`);
  for (const r of selector?.matchExpressions ?? []) {
    const values = (r.values ?? []).join(',');
    if (r.operator === 'In') out.push(`${r.key} in (${values})`);
    else if (r.operator === 'NotIn') out.push(`${r.key} notin (${values})`);
    else if (r.operator === 'Exists') out.push(r.key);
    else out.push(`!${r.key}`);
  }
  return out;
}

/**
 * Whether a review needs the cluster's Machines, and the list that finds them: only a quorum hook's removal by someone
 * the policy does not register for every removed hook's owner (an RBAC-allowed owner is known only later, so it is
 * listed for too). Anything else costs no request.
 */
export function quorumLookup(policy: Policy, input: ReviewInput): QuorumLookup | undefined {
  const removal = quorumRemoval(policy, input);
  if (!removal) return undefined;
  if (removal.removed.length > 0 && removal.removed.every((h) => registeredActor(policy, input.userInfo, h.owner)))
    return undefined;
  const resource = KNOWN_RESOURCES.find((r) => r.group === input.kind.group && r.kind === input.kind.kind);
  if (!resource) return undefined;
  const { quorum: q, member } = removal;
  const cluster = member.cluster === '' ? `!${q.clusterLabel}` : `${q.clusterLabel}=${member.cluster}`;
  return {
    path: `/apis/${input.kind.group}/${input.kind.version}/namespaces/${encodeURIComponent(member.namespace)}/${resource.plural}`,
    labelSelector: [...selectorString(q.match.labelSelector), cluster].join(','),
    limit: MAX_QUORUM_MACHINES,
    key: `${q.name}/${member.namespace}/${member.cluster}`,
  };
}

/**
 * The other control-plane Machines of `me`'s cluster under quorum hook `q` deleting without it, by name, from the
 * Machines a transport listed or read (re-checked here: a list's selector is not trusted to have selected only these).
 * An object without its own apiVersion and kind is read as `gvk`, the kind it was listed as.
 */
export function unprotectedPeers(
  policy: Policy,
  q: QuorumHook,
  me: QuorumMember,
  gvk: GroupVersionKind,
  machines: readonly KubeObject[],
): string[] {
  const out = new Set<string>();
  for (const object of machines) {
    const kind = gvkOf(object) ?? gvk;
    if (quorumHookOf(policy, kind, object) !== q) continue;
    const m = memberOf(q, kind, object);
    if (m.name === me.name || !sameCluster(m, me)) continue;
    if (m.deleting && !m.protected) out.add(m.name);
  }
  return [...out].sort();
}

/** The Machine names a request's new object acknowledges (QUORUM_ACK_ANNOTATION), trimmed, empty ones left out. */
export function acknowledgedMachines(object: KubeObject | null): Set<string> {
  const annotations = metadata(object)['annotations'];
  const value = isRecord(annotations) ? annotations[QUORUM_ACK_ANNOTATION] : undefined;
  if (typeof value !== 'string') return new Set();
  return new Set(
    value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
}
