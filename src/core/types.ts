// The one input shape every transport builds (webhook, audit, CLI) and the decision values the engine returns.

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
}

/** A Kubernetes object as JSON: nothing about it is trusted, so rules read it through guards. */
export type KubeObject = Record<string, unknown>;

/** Cluster facts a transport looked up before review (the engine never fetches). */
export interface ReviewContext {
  /** Parents found for child-resource rules, keyed by "<apiVersion>/<kind>/<namespace>/<name>". */
  parents?: Readonly<Record<string, ParentFact>>;
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
}

export const RULE_IDS = [
  'hook-naming',
  'single-owner',
  'owner-only-removal',
  'deletion-freeze',
  'owner-references',
  'default-hooks',
  // Advisory, never run by the webhook: `validate` reports Machine API hooks that cannot become Cluster API annotations.
  'capi-migration',
  // Child resources (src/core/children.ts): the parent's ownerReference and finalizer, the parent's existence,
  // and who may remove the finalizer.
  'child-owner-reference',
  'child-parent',
  'child-finalizer',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export type Enforcement = 'deny' | 'warn' | 'off';

export type Stage = 'preDrain' | 'preTerminate';

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
   * Identity of the problem independent of list positions, so an UPDATE can tell a problem it
   * introduced from one the stored object already had (validation ratcheting).
   */
  key: string;
}

/** Something allowed that must leave a trace: break-glass removals. */
export interface Notice {
  rule: RuleId;
  warning: string;
  /** auditAnnotations entry; the API server prefixes the key with the webhook name. */
  audit: { key: string; value: string };
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
