// What a rule declares for native admission (ValidatingAdmissionPolicy / MutatingAdmissionPolicy): CEL text
// built by small pure functions from the policy and a carrier's CEL view; src/native groups it into objects.
import type { HookCarrier } from '../carriers.js';
import type { DefaultHookRule, Policy } from '../policy.js';
import type { Stage } from '../types.js';

/** A named CEL expression, evaluated at most once per request and read as variables.<name>. */
export interface CelVariable {
  name: string;
  expression: string;
}

/**
 * Which violations a validation reports, and so which policy (and binding action) it lands in:
 * - enforced: the rule's violations an UPDATE introduced (all of them for a rule that does not ratchet): denied
 *   under `deny`, warned under `warn`;
 * - existing: violations the stored object already had (ratcheting rules only): always a warning;
 * - warn: always a warning with an audit annotation (unverifiedRemoval: warn);
 * - breakGlass: allowed with a warning and an audit annotation (the break-glass policy).
 */
export type Outcome = 'enforced' | 'existing' | 'warn' | 'breakGlass';

export interface NativeValidation {
  outcome: Outcome;
  /** True when the request passes. */
  expression: string;
  /** The webhook's message for the first violation, as a CEL string expression. */
  messageExpression: string;
  reason: 'Forbidden' | 'Invalid';
  /**
   * A policy of its own (name suffix) that the API server evaluates only when `when` holds (a matchCondition: no
   * variables), so validations that matter for few requests cost the others one expression.
   */
  gate?: {
    suffix: string;
    when: { name: string; expression: string };
    /** `when` can hold only on UPDATE (it compares with the stored object): the policy matches UPDATE only. */
    updateOnly?: boolean;
  };
}

/** One stage of hooks as CEL sees it: every hook a map with string name and owner (annotation hooks also key). */
export interface CelStage {
  stage: Stage;
  /** CEL list of the object's hooks in this stage. */
  hooks: string;
  oldHooks: string;
  /** CEL map identity -> owner of the object's / stored object's hooks in this stage (see `id`). */
  index: string;
  oldIndex: string;
  /**
   * CEL string expression: the identity of hook `h`, what old and new hooks are compared by (Hook.id): its name
   * in a list (the CRD's list-map key), its annotation key on Cluster API.
   */
  id(h: string): string;
  /** CEL string expressions: the identities a hook named `n` (a CEL string) may have here; look each up in an index. */
  named(n: string): string[];
  /** The stage's field path, as a message prints it (spec.lifecycleHooks.preDrain, metadata.annotations). */
  stagePath: string;
  /** CEL string expression: the path of hook `h` at index `i` (spec.lifecycleHooks.preDrain[0], metadata.annotations[key]). */
  hookPath(i: string, h: string): string;
  namePath(i: string, h: string): string;
  ownerPath(i: string, h: string): string;
}

/** A carrier as CEL sees it: its variables (declared once per policy) and its stages. */
export interface CelCarrier {
  carrier: HookCarrier;
  variables: readonly CelVariable[];
  stages: readonly CelStage[];
  /** A variable-free expression, true when an UPDATE changes the hooks' stanzas (a superset of removing or re-owning). */
  changesHooks: string;
  /** A variable-free expression, true when the object carries a hook. */
  hasHooks: string;
}

export interface NativeContext {
  policy: Policy;
  cel: CelCarrier;
  /** The cluster's minor version (1.<minor>), for CEL libraries that came later. */
  k8sMinor: number;
}

/** A rule's validating CEL for one carrier. */
export interface NativeValidating {
  variables: readonly CelVariable[];
  validations: readonly NativeValidation[];
}

/** A JSONPatch mutation for one default-hook rule on one carrier. */
export interface NativeMutation {
  variables: readonly CelVariable[];
  /** CEL list of JSONPatch values. */
  jsonPatch: string;
}

/** The native form a rule module declares (src/core/rules/context.ts). */
export type NativeForm =
  | { validating: (ctx: NativeContext) => NativeValidating }
  | { mutating: (policy: Policy, rule: DefaultHookRule, carrier: HookCarrier) => NativeMutation }
  | { webhookOnly: string };
