// What a rule declares for native admission (ValidatingAdmissionPolicy / MutatingAdmissionPolicy): CEL text
// built by small pure functions from the policy and a carrier's CEL view; src/compilers/native groups it into objects.
import type { HookCarrier } from '../carriers.js';
import type { DefaultHookRule, Policy } from '../policy.js';
import type { Stage } from '../types.js';
import type { Cel } from './text.js';
import type { Divergence } from '../divergence.js';

/** A named CEL expression, evaluated at most once per request and read as variables.<name>. */
export interface CelVariable {
  name: string;
  expression: Cel;
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
  expression: Cel;
  /** The webhook's message for the first violation, as a CEL string expression. */
  messageExpression: Cel;
  reason: 'Forbidden' | 'Invalid';
  /**
   * A policy of its own (name suffix) that the API server evaluates only when `when` holds (a matchCondition: no
   * variables), so validations that matter for few requests cost the others one expression.
   */
  gate?: {
    suffix: string;
    when: { name: string; expression: Cel };
    /** `when` can hold only on UPDATE (it compares with the stored object): the policy matches UPDATE only. */
    updateOnly?: boolean;
    /** `when` holds only when the hooks change, so the carrier's changes-what-rules-read condition adds nothing. */
    changesHooks?: boolean;
    /**
     * The rule judges a deleting object's finalizer-only last removal (judgesFinalizerRemovals): its policy is
     * evaluated for it, where the others are not (not-finishing-deletion).
     */
    finishingDeletion?: boolean;
  };
}

/** One stage of hooks as CEL sees it: every hook a map with string name and owner (annotation hooks also key). */
export interface CelStage {
  stage: Stage;
  /** CEL list of the object's hooks in this stage. */
  hooks: Cel;
  oldHooks: Cel;
  /** CEL map identity -> owner of the object's / stored object's hooks in this stage (see `id`). */
  index: Cel;
  oldIndex: Cel;
  /**
   * CEL string expression: the identity of hook `h`, what old and new hooks are compared by (Hook.id): its name
   * in a list (the CRD's list-map key), its annotation key on Cluster API.
   */
  id(h: Cel): Cel;
  /** CEL string expressions: the identities a hook named `n` (a CEL string) may have here; look each up in an index. */
  named(n: Cel): Cel[];
  /** The stage's field path, as a message prints it (spec.lifecycleHooks.preDrain, metadata.annotations). */
  stagePath: string;
  /** CEL string expression: the path of hook `h` at index `i` (spec.lifecycleHooks.preDrain[0], metadata.annotations[key]). */
  hookPath(i: Cel, h: Cel): Cel;
  namePath(i: Cel, h: Cel): Cel;
  ownerPath(i: Cel, h: Cel): Cel;
}

/** A carrier as CEL sees it: its variables (declared once per policy) and its stages. */
export interface CelCarrier {
  carrier: HookCarrier;
  variables: readonly CelVariable[];
  stages: readonly CelStage[];
  /** A variable-free expression, true when an UPDATE changes the hooks' stanzas (a superset of removing or re-owning). */
  changesHooks: Cel;
  /** A variable-free expression, true when the object carries a hook. */
  hasHooks: Cel;
}

export interface NativeContext {
  policy: Policy;
  /** The carrier's hooks as CEL reads them. */
  view: CelCarrier;
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
  jsonPatch: Cel;
}

/** The native form a rule module declares (src/rules/context.ts). */
export type NativeForm =
  | {
      validating: (ctx: NativeContext) => NativeValidating;
      /**
       * Whether its CEL reads a list carrier's index of hooks by name (CelStage.index or oldIndex, celWasStored among
       * others), which a stage naming one hook twice fails to build: native mode then refuses where the webhook
       * judges the hooks, a divergence src/compilers/native/notes.ts declares. test/native/name-index.test.ts holds it to the
       * rendered CEL.
       */
      readsNameIndex: boolean;
      /**
       * Where native mode decides or words this rule otherwise than the webhook, for this policy (src/compilers/native/notes.ts
       * adds the name-index one for a rule that reads the index and does not word it here).
       */
      divergences?: (policy: Policy) => readonly Divergence[];
    }
  | { mutating: (policy: Policy, rule: DefaultHookRule, carrier: HookCarrier) => NativeMutation }
  /**
   * No native form: what native mode does instead, one sentence (render declares it as a divergence). A child rule's
   * is in force when the policy has child rules, and may differ on any request; a rule with `divergences` declares
   * its own, with the requests it covers, instead.
   */
  | { webhookOnly: string; divergences?: (policy: Policy) => readonly Divergence[] };

/** The native form of a validating rule, as the expr shapes give it. */
export type NativeValidatingForm = Extract<NativeForm, { validating: unknown }>;
