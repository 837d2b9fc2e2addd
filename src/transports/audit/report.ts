// The result of an audit run (`hookkeeper audit --output json`): a stable, documented shape from which the
// table, the PolicyReports and the metrics are made.
import { kindLabel } from '../../core/resources.js';
import type { StaticAdmissionStatus } from './static-admission.js';
import type { QuorumCluster } from '../../core/quorum.js';

export type { QuorumCluster };
import type { DeletionStanding, HookExplanation } from '../../core/explain/model.js';
import type { HookRef, RuleId } from '../../core/types.js';

/** Engine rules (src/core/registry.ts), stuck-deletion and orphaned-owner among them. */
export type AuditRule = RuleId;

export interface AuditObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

export interface AuditFinding {
  rule: AuditRule;
  /** `fail` counts against the cluster (exit 1); `warn` is a rule under warn enforcement. */
  result: 'fail' | 'warn';
  object: AuditObjectRef;
  path?: string;
  message: string;
  fix?: string;
  hook?: HookRef;
  /** stuck-deletion: when deletion was requested and how long ago, at the audit's start. */
  deletionTimestamp?: string;
  deletingForSeconds?: number;
  /**
   * stuck-deletion: when the wait at the hook's stage began and how long ago, and what records it (a status field
   * or condition; metadata.deletionTimestamp when the Machine records nothing of it).
   */
  waitingSince?: string;
  waitingForSeconds?: number;
  waitingSinceFrom?: string;
  /**
   * A copy of a migrated Machine (either API, in its migration namespace): the API whose copy is authoritative, or
   * status.authoritativeAPI as stored when it names none (Migrating without spec.authoritativeAPI).
   */
  authoritativeAPI?: string;
  /** stuck-deletion: the explanation `hookkeeper explain` gives of this hook (one model, src/core/explain). */
  explanation?: FindingExplanation;
}

/** A Machine API Machine whose status names an authoritative API (src/core/migration.ts). */
export interface MigratedMachine {
  name: string;
  status: string;
  spec?: string;
  authoritative?: 'MachineAPI' | 'ClusterAPI';
}

export interface FindingExplanation {
  /** The step the deletion waits at, how that is known, and since when. */
  waitingAt?: NonNullable<DeletionStanding['waitingAt']>;
  hook: HookExplanation;
  /** The command that explains the whole Machine, its Node and its owners' health included. */
  explain: string;
}

export interface ResourceStatus {
  /** plural.group, e.g. machines.machine.openshift.io */
  resource: string;
  version: string;
  kind: string;
  /** `not-installed`: the API server does not serve it (no CRD); skipped, not an error. */
  status: 'audited' | 'not-installed';
  objects: number;
}

export interface AuditReport {
  apiVersion: 'hookkeeper.io/v1alpha1';
  kind: 'AuditReport';
  startedAt: string;
  finishedAt: string;
  /** Absent: all namespaces. */
  namespace?: string;
  stuckAfterSeconds: number;
  resources: ResourceStatus[];
  notes: string[];
  findings: AuditFinding[];
  summary: {
    objects: number;
    /** Objects without any finding. */
    passed: number;
    fail: number;
    warn: number;
    /** Deleting objects held by hooks for longer than stuckAfterSeconds. */
    stuckDeletions: number;
    /** Hooks whose owner's registered service accounts are all gone. */
    orphanedHooks: number;
  };
  /** Objects without findings; recorded only when asked (PolicyReports list them as `pass`). */
  passed?: AuditObjectRef[];
  /** Machines under the Machine API to Cluster API migration, and which copy is authoritative (also one of `notes`). */
  migration?: MigratedMachine[];
  /** The static admission manifests the answering API server reports (also one of `notes`). */
  staticAdmission?: StaticAdmissionStatus;
  /**
   * Clusters with control-plane Machines deleting without their quorum hook (policy quorumHooks), one or more; two or
   * more is a quorum-at-risk finding on each. Absent: none.
   */
  quorum?: QuorumCluster[];
}

export function objectLabel(o: AuditObjectRef): string {
  return `${kindLabel(o.apiVersion, o.kind)} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

export { formatDuration } from '../../core/duration.js';
