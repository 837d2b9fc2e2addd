// A quorum at risk: the control-plane Machines of one cluster deleting without quorum protection, as the audit's
// quorum-at-risk finding and `explain` name it, from a Machine and its cluster's Machines (the quorum fact).
import type { QuorumHook, Policy } from './policy.js';
import { memberOf, quorumHookOf, unprotectedPeers } from './quorum.js';
import type { GroupVersionKind, KubeObject } from './types.js';

/** Where a control-plane Machine's cluster stands under its quorum hook. */
export interface QuorumStanding {
  hook: QuorumHook;
  namespace: string;
  /** The cluster label's value; '' when the Machine has none (its namespace is then its cluster). */
  cluster: string;
  /** The Machine carries one of the hook's names at its stage. */
  protected: boolean;
  /** The Machine itself is deleting without the hook. */
  unprotectedDeleting: boolean;
  /** The cluster's control-plane Machines deleting without the hook, the Machine among them if it is; sorted. */
  machines: string[];
}

/**
 * The standing of a Machine's cluster, from `machines` (the cluster's control-plane Machines as listed or read from
 * files; objects under another quorum hook or of another cluster are ignored): undefined when no quorum hook of the
 * policy selects the Machine.
 */
export function quorumStanding(
  policy: Policy,
  gvk: GroupVersionKind,
  object: KubeObject,
  machines: readonly KubeObject[],
): QuorumStanding | undefined {
  const hook = quorumHookOf(policy, gvk, object);
  if (!hook) return undefined;
  const me = memberOf(hook, gvk, object);
  const names = unprotectedPeers(policy, hook, me, gvk, machines);
  if (me.deleting && !me.protected) names.push(me.name);
  return {
    hook,
    namespace: me.namespace,
    cluster: me.cluster,
    protected: me.protected,
    unprotectedDeleting: me.deleting && !me.protected,
    machines: names.sort(),
  };
}

/** Two or more deleting without the hook: the state the audit reports and the alert fires on. */
export const atRisk = (s: QuorumStanding): boolean => s.machines.length >= 2;

/** "a, b and c" */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/** The cluster as the words name it: its label's value, else its namespace. */
export function clusterText(s: Pick<QuorumStanding, 'cluster' | 'namespace'>): string {
  return s.cluster !== '' ? `cluster ${s.cluster}` : `namespace ${s.namespace}`;
}

/** "control-plane Machines m-0 and m-2 of cluster c1 are deleting without quorum protection (EtcdQuorumOperator)" */
export function quorumAtRiskText(s: QuorumStanding): string {
  return (
    `control-plane Machines ${listed(s.machines)} of ${clusterText(s)} are deleting without quorum protection ` +
    `(${s.hook.hooks.join(' or ')}): their etcd members can leave together and lose quorum`
  );
}

/**
 * What to do. A deleting Machine takes no new hook (deletion-freeze, and machine-api-operator's webhook for the Machine
 * API), so the hook cannot be restored; a paused Cluster API Machine is not reconciled, its deletion included
 * (cluster-api core/reconcilers/machine/machine_controller.go returns on EnsurePausedCondition before reconcileDelete).
 */
export function quorumAtRiskFix(format: 'list' | 'annotations'): string {
  const hold =
    format === 'annotations'
      ? 'pause all but one of them (annotation cluster.x-k8s.io/paused) so their etcd members leave one at a time, '
      : '';
  return (
    `a deleting Machine takes no new hook, so nothing holds these deletions: check etcd's members and health now, ` +
    `${hold}remove the quorum hook from no other control-plane Machine until each replacement has joined etcd, ` +
    `and if quorum is lost, restore etcd from a backup`
  );
}
