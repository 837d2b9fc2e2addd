// The one list of rules. Everything that names rules is derived from it: the RuleId type, the policy schema's
// enforcement properties and default enforcement, the engine's loops, the metrics' series, the validate report.
import type { Fact, RuleModule } from './rules/context.js';
import { capiMigrationRule } from './rules/capi-migration.js';
import { childFinalizerRule } from './rules/children-finalizer.js';
import { childOwnerReferenceRule } from './rules/children-owner-reference.js';
import { childParentRule } from './rules/children-parent.js';
import { crdSchemaRule } from './rules/crd-schema.js';
import { defaultHookKeptRule } from './rules/default-hook-kept.js';
import { defaultHooksRule } from './rules/default-hooks.js';
import { controllerFinalizerRule } from './rules/controller-finalizer.js';
import { deletionFreezeRule } from './rules/deletion-freeze.js';
import { hookCountRule } from './rules/hook-count.js';
import { missingDefaultHookRule } from './rules/missing-default-hook.js';
import { hookNamingRule } from './rules/naming.js';
import { orphanedOwnerRule } from './rules/orphaned-owner.js';
import { ownerOnlyRemovalRule } from './rules/owner-only-removal.js';
import { ownerReferencesRule } from './rules/owner-references.js';
import { singleOwnerRule } from './rules/single-owner.js';
import { stuckDeletionRule } from './rules/stuck-deletion.js';
import { templateHookRemovedRule } from './rules/template-hook-removed.js';
import { unprotectedOwnerRule } from './rules/unprotected-owner.js';
import { RULE_IDS, type RuleId } from './rule-ids.js';
import type { Enforcement, Source } from './types.js';

/** In evaluation order: a decision lists violations rule by rule in this order. */
export const RULES = [
  hookNamingRule,
  hookCountRule,
  singleOwnerRule,
  ownerOnlyRemovalRule,
  templateHookRemovedRule,
  deletionFreezeRule,
  controllerFinalizerRule,
  ownerReferencesRule,
  defaultHooksRule,
  defaultHookKeptRule,
  missingDefaultHookRule,
  capiMigrationRule,
  childOwnerReferenceRule,
  childParentRule,
  childFinalizerRule,
  crdSchemaRule,
  stuckDeletionRule,
  orphanedOwnerRule,
  unprotectedOwnerRule,
] as const satisfies readonly RuleModule[];

// The id list and the registry agree entry by entry, in order (a mismatch does not compile).
type IdsOf<T extends readonly { id: string }[]> = {
  -readonly [K in keyof T]: T[K] extends { id: infer I } ? I : never;
};
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const registryMatchesIds: Same<IdsOf<typeof RULES>, [...typeof RULE_IDS]> = true;
void registryMatchesIds;

export { RULE_IDS };

/** Each rule's enforcement when a policy does not set one. */
export function defaultEnforcement(): Record<RuleId, Enforcement> {
  return Object.fromEntries(RULES.map((r) => [r.id, r.enforcement])) as Record<RuleId, Enforcement>;
}

/** The rules whose validate function runs for a source, in registry order (computed once: the engine's hot path). */
export const VALIDATING: Readonly<Record<Source, readonly RuleModule<RuleId>[]>> = {
  admission: RULES.filter((r) => r.validate && r.sources.includes('admission')),
  audit: RULES.filter((r) => r.validate && r.sources.includes('audit')),
  validate: RULES.filter((r) => r.validate && r.sources.includes('validate')),
};

/** Whether any rule of a source selects every object (so no request of that source is skipped by kind). */
export const SELECTS_OBJECTS: Readonly<Record<Source, boolean>> = {
  admission: VALIDATING.admission.some((r) => r.selects === 'objects'),
  audit: VALIDATING.audit.some((r) => r.selects === 'objects'),
  validate: VALIDATING.validate.some((r) => r.selects === 'objects'),
};

/** The rules with a mutate function, in registry order. */
export const MUTATING: readonly RuleModule<RuleId>[] = RULES.filter((r) => r.mutate);

/** Rules `hookkeeper validate` runs that the webhook does not: reported after the webhook's own findings. */
export const VALIDATE_ONLY: ReadonlySet<RuleId> = new Set(
  RULES.filter((r) => r.sources.includes('validate') && !r.sources.includes('admission')).map((r) => r.id),
);

/**
 * Rules about the cluster's state rather than the object's content (they need facts only the audit gathers): the
 * audit reports their findings after the object's own.
 */
export const CLUSTER_STATE: ReadonlySet<RuleId> = new Set(
  RULES.filter(
    (r) =>
      !r.sources.includes('admission') &&
      r.facts.some((f) => f === 'deletion' || f === 'serviceAccounts' || f === 'ownership'),
  ).map((r) => r.id),
);

/** Rules that need a kind of cluster fact, for transports deciding what to look up. */
export function rulesNeeding(fact: Fact): readonly RuleId[] {
  return RULES.filter((r) => r.facts.includes(fact)).map((r) => r.id);
}
