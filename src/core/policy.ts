// The policy model the engine evaluates. Loading, defaults and validation live in src/infrastructure/config.
import type { Enforcement, MachineStage, RuleId } from './types.js';

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/** Who acts for a hook owner: the identities allowed to remove that owner's hooks. */
export interface OwnerIdentities {
  users: readonly string[];
  groups: readonly string[];
  serviceAccounts: readonly ServiceAccountRef[];
}

/** A hook annotation key whose empty value means `owner`. */
export interface ImpliedOwner {
  hook: string;
  owner: string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: readonly string[];
}

export interface LabelSelector {
  matchLabels?: Readonly<Record<string, string>>;
  matchExpressions?: readonly LabelSelectorRequirement[];
}

export interface KindRef {
  group: string;
  kind: string;
}

export interface ObjectSelector {
  kinds: readonly KindRef[];
  /** Empty or absent: every namespace. */
  namespaces?: readonly string[];
  labelSelector?: LabelSelector;
}

export interface DefaultHookRule {
  /** Names the rule in logs, metrics and audit findings. */
  name: string;
  match: ObjectSelector;
  operations: readonly ('CREATE' | 'UPDATE')[];
  stage: MachineStage;
  hook: { name: string; owner: string };
}

/**
 * A hook that keeps a control-plane member's quorum (the etcd operator's on OpenShift, a control-plane provider's on
 * Cluster API): while one Machine of a cluster is deleting without it, nobody but its owner removes it from another
 * unless the request acknowledges that Machine by name (src/core/quorum.ts).
 */
export interface QuorumHook {
  /** Names the protection in messages, audit findings and metrics. */
  name: string;
  /** The control-plane Machines it protects. */
  match: ObjectSelector;
  stage: MachineStage;
  /** Hook names, any one of which protects a Machine (each control-plane provider writes its own). */
  hooks: readonly string[];
  /** The label whose value names a Machine's cluster: Machines of one namespace sharing it are one cluster. */
  clusterLabel: string;
}

/** Where a child names its parent (same namespace): a label, an annotation, or a name template (core/children.ts). */
export type ParentNameSource = { label: string } | { annotation: string } | { template: string };

/** What a child rule does when its parent is missing or deleting: refuse the child, warn, or say nothing. */
export type ParentAction = 'deny' | 'warn' | 'allow';

/** The parent kind of a child rule: enough to build its API path and its ownerReference. */
export interface ParentKindRef {
  apiVersion: string;
  kind: string;
  /** Plural resource name, for the API path (virtualmachines). */
  resource: string;
  namespaced: boolean;
}

/** Child resources get an ownerReference to their parent and a finalizer, added at admission. */
export interface ChildRule {
  name: string;
  match: ObjectSelector;
  parent: ParentKindRef & { nameFrom: ParentNameSource };
  /** Kept on the child until an identity of `finalizerRemovers` (the parent's controller) removes it. */
  finalizer?: string;
  controller: boolean;
  blockOwnerDeletion: boolean;
  onMissingParent: ParentAction;
  /** The child is already controlled by another owner: refuse it, or add the parent as a non-controller owner. */
  onExistingController: 'deny' | 'nonController';
  onDeletingParent: ParentAction;
  /** Keys of `owners` whose identities may remove the finalizer. */
  finalizerRemovers: readonly string[];
}

/** What an unverified removal of an unprotected owner's hook gets (PodSecurity's warn-then-enforce path). */
export type UnverifiedRemoval = 'allow' | 'warn' | 'deny';

export const UNVERIFIED_REMOVAL_VALUES: readonly UnverifiedRemoval[] = ['allow', 'warn', 'deny'];

/** What a removal allowed by wildcard RBAC rights alone (remove on every hook owner) gets: refused, or warned. */
export type WildcardGrants = 'deny' | 'warn';

export const WILDCARD_GRANTS_VALUES: readonly WildcardGrants[] = ['deny', 'warn'];

export interface Policy {
  enforcement: Readonly<Record<RuleId, Enforcement>>;
  /** Hook names that may only carry their registered owner. */
  reservedHooks: ReadonlyArray<{ name: string; owner: string }>;
  /** Owner string (as written in hooks) -> the identities that act for it. */
  owners: Readonly<Record<string, OwnerIdentities>>;
  /**
   * Cluster API hook annotation keys whose empty value stands for an owner: a control-plane provider writes its hook
   * with no owner (KubeadmControlPlane's kcp-cleanup), so its removal is judged as that owner's (src/core/implied-owner.ts).
   */
  impliedOwners: ReadonlyArray<ImpliedOwner>;
  /**
   * When true, a hook whose owner is neither in `owners` nor granted through RBAC (remove on hookowners) cannot be
   * added, so every hook is identity-checked.
   */
  strictOwners: boolean;
  /**
   * A removal (or owner change) of a hook whose owner is unprotected (neither registered nor granted), by someone
   * nothing verifies: allowed silently, allowed with a warning and an audit annotation, or denied.
   */
  unverifiedRemoval: UnverifiedRemoval;
  /**
   * RBAC that lets an identity remove every hook owner (cluster-admin, `*` verbs or resources, no resourceNames) is
   * not ownership: a removal it alone allows is denied, or allowed with a warning and an audit annotation.
   */
  wildcardGrants: WildcardGrants;
  /** Identities that may remove any hook; every such removal is allowed with a warning and audited. */
  breakGlass: { users: readonly string[]; groups: readonly string[] };
  defaultHooks: readonly DefaultHookRule[];
  quorumHooks: readonly QuorumHook[];
  children: readonly ChildRule[];
  /**
   * At most this many hooks in one stage whose owner the policy does not name (rule hook-count; namedOwners below):
   * the Machine CRDs set no maxItems, and native mode's CEL must stay inside the API server's cost budget for every
   * object the policy admits. The named owners' hooks have a bound of their own (POLICY_OWNER_HOOKS_PER_STAGE).
   */
  maxHooksPerStage: number;
  migration: Migration;
  /**
   * Per Machine API group, the service accounts its Machine controller runs as: while a Machine carries a hook, only
   * they (or break-glass, audited) remove its controller's finalizer or a deleting Machine's last finalizer
   * (src/core/machine-controllers.ts).
   */
  machineControllers: Readonly<Record<MachineGroup, readonly ServiceAccountRef[]>>;
}

/** The API groups whose Machines have a controller finalizer hookkeeper holds (src/core/machine-controllers.ts). */
export type MachineGroup = 'machine.openshift.io' | 'cluster.x-k8s.io';

export const MACHINE_GROUPS: readonly MachineGroup[] = ['machine.openshift.io', 'cluster.x-k8s.io'];

/**
 * OpenShift's Machine API to Cluster API migration: each Machine exists twice, the same name in two namespaces, and a
 * synchronization controller mirrors the authoritative copy's hooks onto the other (src/core/migration.ts).
 */
export interface Migration {
  /** The synchronization controller's identities: their hook removals on the non-authoritative copy are mirrors. */
  synchronizers: readonly ServiceAccountRef[];
  /** Where the machine.openshift.io copies live. */
  machineAPINamespace: string;
  /** Where the cluster.x-k8s.io copies live. */
  clusterAPINamespace: string;
}

/** The largest maxHooksPerStage a policy may set: CEL over 1,000 hooks a stage stays within the API server's budget. */
export const MAX_HOOKS_PER_STAGE_LIMIT = 1000;

/**
 * The most impliedOwners a policy may list: each is one conditional, unrolled into the CEL of every rule that reads a
 * hook's owner and evaluated for each empty-valued hook, so the bound keeps that CEL inside the API server's cost
 * budget (the e2e cost proof, cel-cost-capi.ts, fills it); the Cluster API profile lists 2.
 */
export const MAX_IMPLIED_OWNERS = 32;

/**
 * The hooks a stage may hold of owners the policy names, fixed: what others add can never crowd them out, and a stage
 * holds at most MAX_HOOKS_PER_STAGE_LIMIT + this many hooks, the size the e2e cost proof fills (cel-cost.ts).
 */
export const POLICY_OWNER_HOOKS_PER_STAGE = 64;

// Per policy, once: hook-count asks on every review that carries hooks, and a loaded policy never changes.
const NAMED_OWNERS = new WeakMap<Policy, ReadonlySet<string>>();

/**
 * The owners the policy itself names: registered in `owners`, owning a reserved hook or a default hook. Facts both
 * engines have (an RBAC grant is not: native mode sees only the requester's rights), so both count alike.
 */
export function namedOwners(policy: Policy): ReadonlySet<string> {
  let named = NAMED_OWNERS.get(policy);
  if (named === undefined) NAMED_OWNERS.set(policy, (named = collectNamedOwners(policy)));
  return named;
}

function collectNamedOwners(policy: Policy): ReadonlySet<string> {
  const out = new Set<string>(Object.keys(policy.owners));
  for (const h of policy.reservedHooks) out.add(h.owner);
  for (const d of policy.defaultHooks) out.add(d.hook.owner);
  // An empty owner (kubeadm's kcp-cleanup) names nobody: its hooks are others'.
  out.delete('');
  return out;
}

export function serviceAccountUsername(sa: ServiceAccountRef): string {
  return `system:serviceaccount:${sa.namespace}:${sa.name}`;
}

/** Every username/group a registered owner accepts, for messages ("who may remove it"). */
export function describeIdentities(ids: OwnerIdentities): string[] {
  return [...ids.serviceAccounts.map(serviceAccountUsername), ...ids.users, ...ids.groups.map((g) => `group ${g}`)];
}
