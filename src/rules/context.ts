// What a rule is: one module per rule declares its id, default enforcement, ratcheting, where it runs, which
// kinds it selects, the cluster facts it needs, and its validate and/or mutate function (src/core/registry.ts).
import type { HookCarrier, HookReading } from '../core/carriers.js';
import type { Bool } from '../core/expr/expr.js';
import type { NativeForm } from '../core/cel/types.js';
import type { Policy } from '../core/policy.js';
import type { Enforcement, KubeObject, Notice, ReviewInput, Source, Violation } from '../core/types.js';

/** What a rule about any selected kind receives: the policy and the request (facts in input.context). */
export interface InputContext {
  policy: Policy;
  input: ReviewInput;
}

/** What a hook rule receives: also the carrier of the kind and the hooks already read from both objects. */
export interface RuleContext extends InputContext {
  carrier: HookCarrier;
  hooks: HookReading;
  oldHooks: HookReading;
}

export interface RuleResult {
  /** Problems under the rule's enforcement: denied under `deny` (unless ratcheted), warned under `warn`. */
  violations: readonly Violation[];
  /** Problems the policy itself asks to warn about (a child rule's onMissingParent: warn), whatever the enforcement. */
  warnings?: readonly Violation[];
  notices?: readonly Notice[];
}

export type Rule = (ctx: RuleContext) => RuleResult;

/**
 * A part of an object that a rule's answer to an UPDATE depends on: the carrier's hooks (list stanzas or hook
 * annotations), a metadata field, or one label.
 */
export type ObjectPart = 'hooks' | 'ownerReferences' | 'finalizers' | 'deletionTimestamp' | { label: string };

/**
 * What a rule's answer to an admission UPDATE depends on besides the request's kind, namespace and user, from which
 * src/core/cel/webhook-conditions.ts derives the validating webhook's matchCondition: an UPDATE that changes none of
 * `parts` gets the answer a write of the stored object back unchanged gets, and is not sent.
 */
export interface UpdateReads {
  parts: readonly ObjectPart[];
  /**
   * A rule that judges what is stored rather than what changes (or only some changes of a part, by some users) can deny
   * such an UPDATE under `deny`: an expression (src/core/expr) over the request that holds for every UPDATE it might
   * deny, which is then sent too. Its CEL joins the condition; its JavaScript says what a request the condition
   * leaves out loses (src/core/update-reads.ts).
   */
  storedDenial?: Bool;
}

/**
 * What a CREATE must carry for the rule to say anything of it: any hook of its carrier ('hooks'), more than one
 * controller reference ('controllers'), or what a default-hook rule of the policy selects ('selected': its kind,
 * namespace and labels), or being a Machine in its migration namespace made by someone but the synchronizers and
 * machine controllers ('twin': judged against its twin, src/core/migration.ts); none for a rule that judges only
 * UPDATEs.
 */
export interface CreateReads {
  parts: ReadonlyArray<'hooks' | 'controllers' | 'selected' | 'twin'>;
}

/** Cluster facts a transport gathers before review and passes in ReviewInput.context (the core never fetches). */
export type Fact = 'parents' | 'schema' | 'deletion' | 'serviceAccounts' | 'ownership' | 'twin' | 'quorum';

interface RuleCommon<Id extends string> {
  /** Names the rule's folder, src/rules/<id>/. */
  id: Id;
  /**
   * Its place among the rules (ascending; tens leave room): a decision lists violations rule by rule in this order.
   * `npm run render:rules` orders the registry and the ids by it.
   */
  order: number;
  /** Where the validate function runs (Placement says which sources need a native form). */
  sources: readonly Source[];
  /** Enforcement when the policy does not set one. */
  enforcement: Enforcement;
  /**
   * On UPDATE, a violation whose key the stored object already had is a warning, not a denial (as the API server
   * ratchets CRD validation), so history never blocks an unrelated edit or the edit that fixes another problem.
   */
  ratchets: boolean;
  facts: readonly Fact[];
  /** Appended to the fix of a violation ratcheting turned into a warning, in parentheses. */
  ratchetNote?: string;
  /** Also judge an UPDATE that only removes finalizers (hook rules skip those, as machine-api-operator does). */
  judgesFinalizerRemovals?: boolean;
  /** One line for the README's rule table and the CLI's help. */
  summary: string;
}

/**
 * Where the validate function runs (ReviewInput.source; a mutate function runs wherever a mutation is made), and
 * what the rule becomes as a native admission policy (src/compilers/native compiles it): CEL validations or mutations, or
 * `webhookOnly` with what native mode does instead. A rule that runs at admission (its sources start with
 * 'admission', or it mutates) must declare its native form, and one that validates at admission what it reads of
 * an UPDATE: without them it does not compile.
 */
type Placement<Mutate> =
  | {
      sources: readonly ['admission', ...Exclude<Source, 'admission'>[]];
      native: NativeForm;
      mutate?: Mutate;
      /**
       * What the validate function reads of an admission UPDATE (for the policy given), from which the webhook's
       * and the native policies' changes-what-rules-read condition is derived; without it the module does not
       * compile. The proof that it is all is test/deploy/webhook-conditions.test.ts.
       */
      updateReads: (policy: Policy, carrier?: HookCarrier) => UpdateReads;
      /**
       * What it reads of a CREATE of `carrier` under `policy` (test/deploy/webhook-conditions*.test.ts prove it);
       * without it, every CREATE.
       */
      createReads?: (policy: Policy, carrier: HookCarrier) => CreateReads;
    }
  | {
      sources: readonly Exclude<Source, 'admission'>[];
      native: NativeForm;
      mutate: Mutate;
      updateReads?: undefined;
      createReads?: undefined;
    }
  | {
      sources: readonly Exclude<Source, 'admission'>[];
      native?: undefined;
      mutate?: undefined;
      updateReads?: undefined;
      createReads?: undefined;
    };

/** A rule about lifecycle hooks: runs for the kinds of src/core/carriers.ts, on an object (not on DELETE). */
export interface CarrierMutate {
  /**
   * Where apply writes, so only those parts of the object are copied (patch.ts copyForWrites); none when the rule
   * has nothing to do for this input: then, if no rule writes, nothing is copied or compared.
   */
  writes: (carrier: HookCarrier, ctx: InputContext) => ReadonlyArray<readonly string[]>;
  /** Changes `copy` (a clone of input.object along `writes`); returns what changed, for people. */
  apply: (ctx: InputContext, carrier: HookCarrier, copy: KubeObject) => string[];
}

export type CarrierRuleModule<Id extends string = string> = RuleCommon<Id> & {
  selects: 'carriers';
  validate?: Rule;
} & Placement<CarrierMutate>;

/**
 * A rule that needs no hooks read: `children` runs for every kind a policy `children` rule selects, carrier or
 * not; `objects` runs for every request with an object (not DELETE).
 */
export interface ChildMutate {
  writes: ReadonlyArray<readonly string[]>;
  apply: (ctx: InputContext, copy: KubeObject) => string[];
}

export type ChildRuleModule<Id extends string = string> = RuleCommon<Id> & {
  selects: 'children' | 'objects';
  validate?: (ctx: InputContext) => RuleResult;
} & Placement<ChildMutate>;

export type RuleModule<Id extends string = string> = CarrierRuleModule<Id> | ChildRuleModule<Id>;
