// The embedded default policy: what hookkeeper enforces with no config file, and the base a file overrides.
import type { ObjectSelector, Policy } from '../../core/policy.js';
import { defaultEnforcement } from '../../core/registry.js';
import { ETCD_OWNER } from '../../core/explain/known-owners.js';

export const ETCD_HOOK = Object.freeze({ name: 'EtcdQuorumOperator', owner: ETCD_OWNER });

/** OpenShift's control-plane Machines, by the selector the etcd operator itself uses. */
const CONTROL_PLANE_MACHINES: ObjectSelector = {
  kinds: [{ group: 'machine.openshift.io', kind: 'Machine' }],
  namespaces: ['openshift-machine-api'],
  labelSelector: {
    matchExpressions: [
      { key: 'machine.openshift.io/cluster-api-machine-role', operator: 'In', values: ['master', 'arbiter'] },
    ],
  },
};

export const DEFAULT_POLICY: Policy = deepFreeze({
  // Each rule module declares its default (src/core/registry.ts).
  enforcement: defaultEnforcement(),
  reservedHooks: [ETCD_HOOK],
  owners: {
    [ETCD_OWNER]: {
      users: [],
      groups: [],
      serviceAccounts: [{ namespace: 'openshift-etcd-operator', name: 'etcd-operator' }],
    },
  },
  // OpenShift writes every hook with an owner; the Cluster API profile implies its providers' (docs/cluster-api.md).
  impliedOwners: [],
  strictOwners: false,
  // Removing a hook nobody protects is allowed with a warning, an audit annotation and a count; deny protects all.
  unverifiedRemoval: 'warn',
  // Wildcard RBAC (cluster-admin) is held widely and is no owner's: refused; break-glass is the audited way round.
  wildcardGrants: 'deny',
  // The etcd design documents system:masters as the escape hatch for removing the quorum hook by hand.
  breakGlass: { users: [], groups: ['system:masters'] },
  defaultHooks: [
    {
      name: 'etcd-quorum-protection',
      match: CONTROL_PLANE_MACHINES,
      // UPDATE: a Machine relabelled control-plane after its CREATE gets the hook too (only the UPDATE that makes it
      // match; the mutating webhook's matchCondition sends no other UPDATE).
      operations: ['CREATE', 'UPDATE'],
      stage: 'preDrain',
      hook: { ...ETCD_HOOK },
    },
  ],
  quorumHooks: [
    {
      name: 'etcd-quorum',
      // The Machines the etcd default hook protects, grouped by the installer's infrastructure id.
      match: CONTROL_PLANE_MACHINES,
      stage: 'preDrain',
      hooks: [ETCD_HOOK.name],
      clusterLabel: 'machine.openshift.io/cluster-api-cluster',
    },
  ],
  // Child-resource rules name their parent kinds, so there is no sensible default.
  children: [],
  // Far above real use (a Machine carries a handful of hooks); native mode's CEL stays linear and in budget under it.
  maxHooksPerStage: 64,
  migration: {
    // openshift/cluster-capi-operator capi-operator-manifests/default/manifests.yaml: Deployment capi-controllers runs
    // the machine-api-migration container (machine and machineset sync) as this service account, in this namespace.
    synchronizers: [{ namespace: 'openshift-cluster-api', name: 'capi-controllers' }],
    // The same file binds its admission policies to these two namespaces (one per copy of a Machine).
    machineAPINamespace: 'openshift-machine-api',
    clusterAPINamespace: 'openshift-cluster-api',
  },
  machineControllers: {
    // openshift/machine-api-operator pkg/operator/sync.go: Deployment machine-api-controllers (the machine controller)
    // runs as this service account (install/0000_30_machine-api-operator_09_rbac.yaml creates it).
    'machine.openshift.io': [{ namespace: 'openshift-machine-api', name: 'machine-api-controllers' }],
    'cluster.x-k8s.io': [
      // kubernetes-sigs/cluster-api core/config/manager/manager.yaml runs as "manager", which
      // core/config/default/kustomization.yaml prefixes capi- and puts in capi-system (clusterctl's install).
      { namespace: 'capi-system', name: 'capi-manager' },
      // openshift/cluster-api openshift/capi-operator-manifests/default/manifests.yaml: Deployment
      // capi-controller-manager in openshift-cluster-api runs as capi-manager.
      { namespace: 'openshift-cluster-api', name: 'capi-manager' },
    ],
  },
});

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
