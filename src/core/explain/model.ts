// What `hookkeeper explain machine` answers, as a value: the facts a transport gathers (cluster or file) and the
// explanation the core builds from them. `-o json` prints MachineExplanation as it is (schema:
// src/transports/explain/output-schema.ts).
import type { KubeObject, Stage } from '../types.js';

/** A fact the transport could not establish says why: offline, forbidden, not found, not OpenShift... */
export interface Unknown {
  status: 'unknown';
  reason: string;
}

/** One subject RBAC lets act for an owner, as the transport's grant index reports it (src/infrastructure/kube/owner-grants.ts). */
export interface GrantSubjectFact {
  /** User, Group or ServiceAccount, as in the binding. */
  kind: string;
  name: string;
  /** A ServiceAccount's namespace. */
  namespace?: string;
  binding: { kind: string; name: string; namespace?: string };
  role: { kind: string; name: string; namespace?: string };
  /** The role has no resourceNames: it grants every owner (cluster-admin's wildcard, for one), not ownership. */
  allNames: boolean;
}

export interface ConditionFact {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  /** When the condition last changed status: for Drained, when the drain ended. */
  lastTransitionTime?: string;
}

/** What the transport gathered besides the Machine itself; every field is known, or unknown with a reason. */
export interface ExplainFacts {
  /** "file" (offline: `-f`) or "cluster". */
  source: 'cluster' | 'file';
  /** The clock, read by the transport (ms since the epoch); undefined: durations are not given. */
  nowMs?: number;
  /** Subjects RBAC lets act for each of the Machine's hook owners in its namespace. */
  grants: { status: 'known'; byOwner: Readonly<Record<string, readonly GrantSubjectFact[]>> } | Unknown;
  /** Whether service accounts exist, keyed "<namespace>/<name>"; a key missing is unknown. */
  serviceAccounts: { status: 'known'; found: Readonly<Record<string, boolean>> } | Unknown;
  /** The Node of status.nodeRef. */
  node: { status: 'present'; unschedulable: boolean } | { status: 'absent' } | Unknown;
  /** ClusterOperators of the owners hookkeeper knows (known-owners.ts), by name. */
  clusterOperators: Readonly<Record<string, { status: 'found'; conditions: readonly ConditionFact[] } | Unknown>>;
  /**
   * The control-plane Machines of the Machine's namespace (listed, or read from the -f files), for its quorum hook's
   * standing (src/core/quorum-risk.ts). Absent: not read.
   */
  quorum?: { status: 'known'; machines: readonly KubeObject[] } | Unknown;
}

/** A control-plane Machine's cluster under its quorum hook (policy quorumHooks). */
export interface QuorumExplanation {
  /** The quorum hook's name in the policy. */
  name: string;
  hooks: string[];
  stage: Stage;
  namespace: string;
  /** The cluster label's value; '' without one (the namespace is then the cluster). */
  cluster: string;
  /** This Machine carries one of the hooks. */
  protected: boolean;
  /** at-risk: two or more of the cluster's control-plane Machines are deleting without the hook. */
  state: 'at-risk' | 'clear' | 'unknown';
  /** The cluster's control-plane Machines deleting without the hook, as far as known; sorted. */
  unprotectedDeleting: string[];
  detail: string;
  /** What to do, when at risk. */
  fix?: string;
}

/** Where a deletion waits: the two hook stages, and the steps Cluster API and Machine API take between them. */
export type DeletionStep = Stage | 'drain' | 'volumeDetach' | 'infrastructure' | 'other';

/** How hookkeeper knows a value: a status field, a controller's condition, or derived from the hooks present. */
export type EvidenceKind = 'field' | 'condition' | 'derived';

export interface Evidence {
  basis: EvidenceKind;
  /** The field or condition read ("status.deletion.waitForPreDrainHookStartTime"), or how it was derived. */
  detail: string;
}

export interface DeletionStanding {
  deleting: boolean;
  /** metadata.deletionTimestamp. */
  since?: string;
  forSeconds?: number;
  /** The step the deletion waits at; absent when not deleting. */
  waitingAt?: {
    step: DeletionStep;
    evidence: Evidence;
    /** When waiting at this step began, and how that is known; absent: not known. */
    since?: string;
    sinceEvidence?: Evidence;
    forSeconds?: number;
  };
  /** The controllers' own statements found on the object (Deleting, Drainable, Terminable). */
  conditions: Array<ConditionFact & { path: string }>;
  /** status.deletion's start times as written, by field name. */
  startTimes: Record<string, string>;
  notes: string[];
}

export type Existence = 'present' | 'absent' | 'unknown';

/** Someone who may remove a hook, and on what grounds. */
export interface Remover {
  via: 'registry' | 'rbac' | 'rbac-wildcard' | 'break-glass' | 'anyone';
  kind: 'User' | 'Group' | 'ServiceAccount' | 'Anyone';
  name: string;
  namespace?: string;
  /** The RBAC objects that say so (via rbac, rbac-wildcard). */
  binding?: string;
  role?: string;
  /** A ServiceAccount only: whether it exists in the cluster. */
  exists?: Existence;
}

export interface ControllerHealth {
  /** What reports it: "ClusterOperator etcd". */
  reporter: string;
  health: 'healthy' | 'unhealthy' | 'unknown';
  basis: string;
}

export interface NextStep {
  /** Who must act, in words. */
  actor: string;
  /** What to check before anyone removes the hook by hand. */
  checks: string[];
  /** The command that removes exactly this hook, for someone listed in `for`; absent when none should be run here. */
  command?: string;
  for?: string;
  warnings: string[];
}

export interface HookExplanation {
  stage: Stage;
  name: string;
  owner: string;
  /** The hook's value is empty and the policy's impliedOwners names the owner its key stands for (`owner`). */
  ownerImplied?: true;
  path: string;
  /** now: the deletion waits on it; next: it will, at a later step; passed: the deletion is past its stage; none: not deleting. */
  holds: 'now' | 'next' | 'passed' | 'none';
  protection: {
    status: 'protected' | 'unprotected' | 'unknown';
    by: Array<'registry' | 'rbac'>;
    reason: string;
  };
  removers: Remover[];
  /** Owners hookkeeper knows (known-owners.ts): the controller behind them. */
  controller?: { description: string; health?: ControllerHealth };
  nextStep: NextStep;
}

export interface MachineExplanation {
  apiVersion: 'hookkeeper.io/v1alpha1';
  kind: 'MachineExplanation';
  source: 'cluster' | 'file';
  machine: { apiVersion: string; kind: string; resource: string; namespace?: string; name: string; uid?: string };
  /** Machine API objects under OpenShift's migration: spec.authoritativeAPI and status.authoritativeAPI as written. */
  authoritativeAPI?: { spec?: string; status?: string; note: string };
  deletion: DeletionStanding;
  node: { name?: string; status: 'present' | 'absent' | 'unknown' | 'none'; cordoned?: boolean; detail: string };
  hooks: HookExplanation[];
  /** A control-plane Machine's quorum standing; absent for a Machine no quorum hook selects. */
  quorum?: QuorumExplanation;
  /** One line: where it stands and who must act. */
  summary: string;
  notes: string[];
}
