// The hook owners hookkeeper knows by name: the controller behind each, where it reports its health, what to check
// before anyone removes its hook by hand, and the etcd quorum warning both etcd hooks carry.
import type { Hook } from '../carriers.js';
import { hookAnnotationKey } from '../capi.js';
import type { ConditionFact, ControllerHealth, ExplainFacts } from './model.js';

/** The OpenShift etcd operator's owner string on its EtcdQuorumOperator hook (the default policy registers it). */
export const ETCD_OWNER = 'clusteroperator/etcd';

/** KubeadmControlPlane's pre-terminate hook: it removes the Machine's etcd member, after every other such hook. */
export const KCP_CLEANUP_KEY = hookAnnotationKey('preTerminate', 'kcp-cleanup');

export const ETCD_QUORUM_WARNING =
  'removing this hook on two control-plane Machines can lose etcd quorum: act on one Machine at a time, and only ' +
  "once etcd is healthy with this Machine's member replaced";

export interface KnownOwner {
  description: string;
  /** The ClusterOperator whose conditions say whether the controller is healthy (OpenShift). */
  clusterOperator?: string;
  checks: readonly string[];
  warnings: readonly string[];
}

const ETCD_OPERATOR: KnownOwner = {
  description: 'the OpenShift etcd operator (ClusterOperator etcd)',
  clusterOperator: 'etcd',
  checks: [
    'the etcd ClusterOperator reports Available=True and Degraded=False (oc get clusteroperator etcd)',
    "the etcd operator removes this hook itself once this Machine's etcd member is replaced: if a replacement " +
      'control-plane Machine is Running and the hook stays, its logs say why (oc logs -n openshift-etcd-operator ' +
      'deployment/etcd-operator)',
    'no other control-plane Machine is deleting with its etcd hook removed by hand',
  ],
  warnings: [ETCD_QUORUM_WARNING],
};

const KCP_CLEANUP: KnownOwner = {
  description:
    "Cluster API's KubeadmControlPlane controller: it removes this Machine's etcd member right before termination",
  checks: [
    'the other preTerminate hooks are gone: kcp-cleanup waits for them and runs last',
    "the KubeadmControlPlane of this Machine's cluster is reconciling (its conditions) and etcd is healthy",
  ],
  warnings: [ETCD_QUORUM_WARNING],
};

/** The known owner of a hook: by owner string, or (kcp-cleanup, which has no owner) by its annotation key. */
export function knownOwner(hook: Hook): KnownOwner | undefined {
  if (hook.owner === ETCD_OWNER) return ETCD_OPERATOR;
  if (hook.id === KCP_CLEANUP_KEY) return KCP_CLEANUP;
  return undefined;
}

/** The ClusterOperators the transport should read for these hooks. */
export function clusterOperatorsFor(hooks: readonly Hook[]): string[] {
  return [...new Set(hooks.flatMap((h) => knownOwner(h)?.clusterOperator ?? []))];
}

const conditionText = (c: ConditionFact): string => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`;

/** A ClusterOperator reports its operator healthy when Available is True and Degraded is not True. */
export function clusterOperatorHealth(name: string, facts: ExplainFacts): ControllerHealth {
  const reporter = `ClusterOperator ${name}`;
  const fact = facts.clusterOperators[name];
  if (!fact || fact.status === 'unknown')
    return {
      reporter,
      health: 'unknown',
      basis: fact ? fact.reason : facts.source === 'file' ? 'offline (-f): not read from a cluster' : 'not read',
    };
  const find = (type: string): ConditionFact | undefined => fact.conditions.find((c) => c.type === type);
  const shown = ['Available', 'Degraded', 'Progressing'].flatMap((t) => find(t) ?? []);
  const basis = shown.length > 0 ? `${reporter}: ${shown.map(conditionText).join(', ')}` : `${reporter}: no conditions`;
  const available = find('Available')?.status;
  if (available === undefined) return { reporter, health: 'unknown', basis };
  const healthy = available === 'True' && find('Degraded')?.status !== 'True';
  return { reporter, health: healthy ? 'healthy' : 'unhealthy', basis };
}
