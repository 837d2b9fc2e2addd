// Quorum protection: a quorum hook (policy quorumHooks) holds a control-plane Machine's deletion until its etcd
// member is safely gone. Two control-plane Machines of one cluster deleting without it can lose quorum, so the
// admission rule, the audit, explain and the metrics all read a cluster's control-plane Machines through this file.
import { carrierFor, wellFormed } from './carriers.js';
import { isDeleting, isRecord, metadata } from './guards.js';
import type { Policy, QuorumHook } from './policy.js';
import { matchesObject } from './selector.js';
import type { GroupVersionKind, KubeObject } from './types.js';

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

/** A cluster with two or more control-plane Machines deleting without quorum protection. */
export interface QuorumBreach {
  quorum: string;
  namespace: string;
  cluster: string;
  /** The unprotected deleting Machines' names, sorted. */
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
 * Every cluster where two or more control-plane Machines are deleting without quorum protection, from the objects
 * the caller read (the audit's lists, explain's files): one breach per quorum hook and cluster, in a stable order.
 */
export function quorumBreaches(
  policy: Policy,
  objects: ReadonlyArray<{ gvk: GroupVersionKind; object: KubeObject }>,
): QuorumBreach[] {
  const groups = new Map<string, QuorumBreach>();
  for (const { gvk, object } of objects) {
    const q = quorumHookOf(policy, gvk, object);
    if (!q) continue;
    const m = memberOf(q, gvk, object);
    if (!m.deleting || m.protected) continue;
    const key = JSON.stringify([q.name, m.namespace, m.cluster]);
    const group = groups.get(key) ?? { quorum: q.name, namespace: m.namespace, cluster: m.cluster, machines: [] };
    group.machines.push(m.name);
    groups.set(key, group);
  }
  return [...groups.values()]
    .filter((g) => g.machines.length >= 2)
    .map((g) => ({ ...g, machines: [...g.machines].sort() }))
    .sort((a, b) =>
      [a.quorum, a.namespace, a.cluster].join('\0').localeCompare([b.quorum, b.namespace, b.cluster].join('\0')),
    );
}
