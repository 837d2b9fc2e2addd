// The one list of rules. Everything that names rules is derived from it: the RuleId type, the policy schema's
// enforcement properties and default enforcement, the engine's loops, the metrics' series, the validate report.
import type { Fact, RuleModule } from '../rules/context.js';
import { RULES } from '../rules/index.js';
import { RULE_IDS, type RuleId } from '../rules/rule-ids.js';
import type { Enforcement, Source } from './types.js';

export { RULES };

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
      r.facts.some((f) => f === 'deletion' || f === 'serviceAccounts' || f === 'ownership' || f === 'quorum'),
  ).map((r) => r.id),
);

/** Rules that need a kind of cluster fact, for transports deciding what to look up. */
export function rulesNeeding(fact: Fact): readonly RuleId[] {
  return RULES.filter((r) => r.facts.includes(fact)).map((r) => r.id);
}
