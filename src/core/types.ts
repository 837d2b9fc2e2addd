// The one input shape every transport builds (webhook, audit, CLI) and the decision values the engine returns.
import type { RuleId } from '../rules/rule-ids.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface UserInfo {
  username: string;
  uid?: string;
  groups: readonly string[];
  /**
   * What the authenticator added (OpenShift: a token's scopes; a credential id): no rule reads it, but an authorizer
   * may, so the webhook's SubjectAccessReviews carry it as the API server's own authorization would.
   */
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** A Kubernetes object as JSON: nothing about it is trusted, so rules read it through guards. */
export type KubeObject = Record<string, unknown>;

/** Cluster facts a transport looked up before review (the engine never fetches). */
export interface ReviewContext {
  /** Parents found for child-resource rules, keyed by "<apiVersion>/<kind>/<namespace>/<name>". */
  parents?: Readonly<Record<string, ParentFact>>;
  /**
   * The object's schema as a check the transport compiled (a CRD's openAPIV3Schema through ajv, which generates
   * code and so stays outside the core): object in, field errors out, pure. Only `validate --crd` supplies it.
   */
  schema?: (object: KubeObject) => readonly SchemaError[];
  /**
   * The audit's clock, read by the transport, and how long a wait at a hook is stuck after (measured from when the
   * Machine says the wait began, else from its deletionTimestamp: src/core/explain/standing.ts).
   */
  deletion?: { nowMs: number; stuckAfterMs: number };
  /**
   * Whether each service account a hook owner acts through exists, keyed "<namespace>/<name>" (the audit looks
   * them up; a lookup that failed counts as existing). Absent: not looked up, so no owner is judged orphaned.
   */
  serviceAccounts?: Readonly<Record<string, boolean>>;
  /**
   * Hook ownership granted through RBAC (remove on hookowners.hookkeeper.io/<owner>), from the cluster side.
   * Absent: RBAC was not consulted (validate, or a webhook without a cluster), so only the policy's registry counts.
   */
  ownership?: Ownership;
  /**
   * The other copy of a migrated Machine (src/core/migration.ts), looked up only for a synchronizer's hook removal.
   * Absent: not looked up, so no removal counts as a mirror.
   */
  twin?: TwinFact;
  /**
   * The control-plane Machines of the object's cluster under its quorum hook (src/core/quorum.ts): listed by serve
   * for a removal of that hook, taken from the audit's lists. Absent: not looked up.
   */
  quorum?: QuorumFact;
}

/** The cluster's control-plane Machines as the transport found them, or why not (a failed list verifies nothing). */
export type QuorumFact =
  | { found: true; machines: readonly KubeObject[] }
  | { found: false; reason: 'Timeout' | 'Error' | 'TooMany'; message: string };

/** The twin copy as the transport found it: the object, or why not (a failed lookup verifies nothing). */
export type TwinFact =
  { found: true; object: KubeObject } | { found: false; reason: 'NotFound' | 'Timeout' | 'Error'; message: string };

export type OwnerAccess = 'allowed' | 'wildcard' | 'denied' | 'unknown';

/** What the cluster's RBAC says about hook owners (src/core/ownership.ts). */
export interface Ownership {
  /** Owners protected by an RBAC grant in the object's namespace or cluster-wide (the transport's RBAC index). */
  granted: ReadonlySet<string>;
  /**
   * Whether the requesting user may act for each owner asked about (SubjectAccessReview): 'allowed' through a grant
   * naming it, 'wildcard' when RBAC also allows the reserved probe owner (rights over every owner, not ownership),
   * 'unknown' when it could not be asked (nor, for an allowed owner, the probe).
   */
  access: Readonly<Record<string, OwnerAccess>>;
  /**
   * The transport has listed every RBAC collection, so an owner missing from `granted` is known to be unprotected.
   * False (just started, or RBAC cannot be listed): any owner may be protected, so its removal is never allowed as
   * an unprotected owner's; it could not be checked.
   */
  grantsKnown: boolean;
}

/** An error of the object against its CRD schema, found by a transport's check, in the API server's words. */
export interface SchemaError {
  path: string;
  /** The path as keys from the object root (a map key may contain dots), for line lookup. */
  keys: ReadonlyArray<string | number>;
  message: string;
  fix: string;
}

export type ParentFact =
  | { found: true; uid: string; deleting: boolean; namespaced: boolean }
  | { found: false; reason: 'NotFound' | 'Timeout' | 'Error'; message: string };

export interface ReviewInput {
  operation: Operation;
  kind: GroupVersionKind;
  namespace?: string;
  name?: string;
  object: KubeObject | null;
  oldObject: KubeObject | null;
  userInfo: UserInfo;
  dryRun: boolean;
  context?: ReviewContext;
  /**
   * Who asks, as Gatekeeper's augmented review says it: the webhook (absent means admission), the audit of stored
   * objects, or `hookkeeper validate` on manifests. Each rule declares the sources it runs for.
   */
  source?: Source;
}

export type Source = 'admission' | 'audit' | 'validate';

/** Every rule's id (src/rules/rule-ids.ts, which the registry is checked against). */
export type { RuleId };

export type Enforcement = 'deny' | 'warn' | 'off';

/** A Machine's deletion stages, where its hooks hold the deletion (both machine APIs). */
export type MachineStage = 'preDrain' | 'preTerminate';

/** Every stage a hook may gate: a Machine's deletion stages, and a Cluster API Cluster's upgrade (beforeUpgrade). */
export type Stage = MachineStage | 'beforeUpgrade';

export interface HookRef {
  stage: Stage;
  name: string;
  owner: string;
}

export interface Violation {
  rule: RuleId;
  /** Field path in the API server's notation, e.g. spec.lifecycleHooks.preDrain[1].name. */
  path: string;
  /** The whole field error, "<path>: <type>: <detail>", worded as the API server or machine-api-operator words it. */
  message: string;
  /** How to fix it, for people reading CLI output. */
  fix?: string;
  hook?: HookRef;
  /**
   * stuck-deletion: when deletion was requested and how long ago, and when the wait at the hooks' stage began, how
   * long ago, and what says so (a status field or condition, or the deletionTimestamp when nothing records it).
   */
  deletion?: {
    deletionTimestamp: string;
    deletingForSeconds: number;
    waitingSince: string;
    waitingForSeconds: number;
    waitingSinceFrom: string;
  };
  /** The path as keys from the object root, when its text is ambiguous (a map key with dots); for line lookup. */
  keys?: ReadonlyArray<string | number>;
  /**
   * Identity of the problem independent of list positions, so an UPDATE can tell a problem it
   * introduced from one the stored object already had (validation ratcheting).
   */
  key: string;
}

/**
 * A break-glass act that passes a hook's protection: removing or re-owning a hook, adding one under a protected
 * owner's name, removing the finalizers of a Machine whose hooks hold it (its deletion then ends without them), or
 * creating a migrated Machine's copy without hooks its twin carries (which the mirror would then carry over).
 */
export type BreakGlassAction = 'hook-removal' | 'hook-addition' | 'finalizer-removal' | 'twin-creation';

/** Something allowed that must leave a trace: break-glass and unverified removals, and who allowed a removal. */
export interface Notice {
  rule: RuleId;
  /** The AdmissionReview warning; absent when only the audit log keeps the trace (an owner removing its hook). */
  warning?: string;
  /** auditAnnotations entry; the API server prefixes the key with the webhook name. */
  audit: { key: string; value: string };
  /** A hook removal nothing verified, and its owner: counted in hookkeeper_unverified_hook_removals_total. */
  unverifiedOwner?: string;
  /** What break-glass did and the owners whose hooks it concerned: counted in hookkeeper_break_glass_total. */
  breakGlass?: { action: BreakGlassAction; owners: readonly string[] };
  /** The removed hook and its path in the old object, for a notice about one (validate reports where it was). */
  hook?: HookRef;
  path?: string;
  /** How to act on the warning, for people reading CLI output (the webhook's warning has no room for it). */
  fix?: string;
}

export interface Decision {
  allowed: boolean;
  /** Violations under `deny` enforcement; non-empty exactly when allowed is false. */
  denials: readonly Violation[];
  /** Violations under `warn` enforcement, and pre-existing problems an UPDATE did not introduce. */
  warnings: readonly Violation[];
  notices: readonly Notice[];
}

export interface Mutation {
  /** The object after the mutating rules, or null when nothing changed. */
  mutated: KubeObject | null;
  /** RFC 6902 operations from the original to the mutated object; empty when nothing changed. */
  patch: readonly PatchOperation[];
  /** Human-readable account of each change, for logs and `validate --show-patches`. */
  changes: readonly string[];
}

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}
