// Rule default-hooks (mutating): objects matching a policy rule get its hook, e.g. etcd quorum protection on
// control-plane Machines. Idempotent: present hooks are left alone, a wrong owner is corrected in place.
import { type HookCarrier, type HookReading, wellFormed } from '../../core/carriers.js';
import { compiledPer } from '../../core/expr/compiled.js';
import { HookEnv } from '../../core/expr/hooks.js';
import { hookWrite, type HookWrite } from './decision.js';
import { carriesDefaultHook } from './selection.js';
import { quote } from '../../core/guards.js';
import type { DefaultHookRule, Policy } from '../../core/policy.js';
import { defaultHookSelects } from '../../core/default-hook-selection.js';
import { matchesObject } from '../../core/selector.js';
import type { KubeObject, ReviewInput, Violation } from '../../core/types.js';
import type { CarrierRuleModule, ObjectPart, Rule, RuleContext } from '../context.js';
import { required } from '../../core/field-errors.js';
import { nativeDefaultHook } from './cel.js';

/** Each default-hook rule's write decision, compiled once per policy and carrier. */
const writesOf = compiledPer((policy, carrier) => policy.defaultHooks.map((rule) => hookWrite(rule, carrier)));

const NO_HOOKS: HookReading = { hooks: [], problems: [] };

/** Applies every matching default-hook rule to `copy` (a clone of input.object); returns what changed. */
export function applyDefaultHooks(
  policy: Policy,
  input: ReviewInput,
  carrier: HookCarrier,
  copy: KubeObject,
): string[] {
  const changes: string[] = [];
  policy.defaultHooks.forEach((rule, k) => {
    if (!defaultHookSelects(rule, input, carrier, copy)) return;
    const reading = carrier.read(copy);
    // Stanzas the schema refuses (not an object, a stage not a list, an entry not an object) are validation's to
    // report and never rewritten; the JSONPatch fails on them (failurePolicy Ignore) or leaves them as they are.
    if (reading.problems.length > 0) return;
    // The copy as it stands, earlier rules' hooks included, as the next MutatingAdmissionPolicy sees the object.
    const env = new HookEnv(reading, NO_HOOKS, { ...input, object: copy }, policy);
    const write = writesOf(policy, carrier)[k] as HookWrite;
    if (!write.writable.js(env)) return;
    const absent = write.absent.js(env);
    if (!absent && write.kept.js(env)) return;

    const stage = wellFormed(reading.hooks.filter((h) => h.stage === rule.stage));
    // The entry to re-own: a list's first of the hook's name (its index, as the JSONPatch replaces it), a Cluster API
    // hook's own key.
    const id = carrier.hookId(rule.stage, rule.hook.name);
    const named = write.named?.js(env);
    const existing = absent
      ? undefined
      : named
        ? stage.find((h) => h.index === named[0])
        : stage.find((h) => h.id === id);
    const next = stage.map((h) => ({ name: h.name, id: h.id, owner: h === existing ? rule.hook.owner : h.owner }));
    if (!existing) next.push({ ...rule.hook, id });
    carrier.write(copy, rule.stage, next);
    changes.push(
      existing
        ? `${rule.name}: set owner of ${rule.stage} hook ${quote(rule.hook.name)} to ${quote(rule.hook.owner)} (was ${quote(existing.owner)})`
        : `${rule.name}: added ${rule.stage} hook ${quote(rule.hook.name)} owned by ${quote(rule.hook.owner)}`,
    );
  });
  return changes;
}

/** Default hooks a stored object lacks, for the audit (which cannot mutate). */
export function missingDefaultHooks(
  policy: Policy,
  input: ReviewInput,
  carrier: HookCarrier,
  considered: readonly DefaultHookRule[] = policy.defaultHooks,
): Array<{ rule: string; stage: string; name: string; owner: string }> {
  const obj = input.object;
  if (!obj || !carrier.gatesDeletion) return [];
  const hooks = wellFormed(carrier.read(obj).hooks);
  return considered
    .filter((rule) => matchesObject(rule.match, input.kind, input.namespace, obj))
    .filter((rule) => !carriesDefaultHook(hooks, carrier, rule))
    .map((rule) => ({ rule: rule.name, stage: rule.stage, ...rule.hook }));
}

/**
 * The words for a request that ends admission without the hook a default-hook rule added on it (default-hook-kept):
 * hookkeeper adds it, so only a later mutating plugin can have taken it away.
 */
export function strippedDefaultHookMessage(carrier: HookCarrier, rule: DefaultHookRule): string {
  const { name, owner } = rule.hook;
  return required(
    carrier.stagePath(rule.stage),
    `default hook ${quote(name)} owned by ${quote(owner)} is missing at the end of mutating admission (policy rule ${quote(rule.name)}); a mutating webhook or admission policy removed it`,
  ).message;
}

function missingMessage(path: string, name: string, owner: string, rule: string): string {
  return required(path, `default hook ${quote(name)} owned by ${quote(owner)} is missing (policy rule ${quote(rule)})`)
    .message;
}

/** Violations for the default hooks a matching object lacks, under the rule id given. */
export function missingDefaultHookViolations(
  id: 'default-hooks' | 'missing-default-hook',
  { policy, input, carrier }: RuleContext,
  considered: readonly DefaultHookRule[] = policy.defaultHooks,
): Violation[] {
  const lacking = new Set(missingDefaultHooks(policy, input, carrier, considered).map((m) => m.rule));
  return considered.filter((r) => lacking.has(r.name)).map((r) => missingDefaultHookViolation(id, carrier, r));
}

/** The violation for an object that matches a default-hook rule and lacks its hook. */
export function missingDefaultHookViolation(
  id: 'default-hooks' | 'missing-default-hook',
  carrier: HookCarrier,
  rule: DefaultHookRule,
): Violation {
  const { stage, hook } = rule;
  const path = carrier.stagePath(stage);
  return {
    rule: id,
    path,
    message: missingMessage(path, hook.name, hook.owner, rule.name),
    fix: `add ${carrier.hookText(stage, hook.name, hook.owner)} to ${path}; hookkeeper adds it on create and on the update that makes the object match`,
    hook: { stage, name: hook.name, owner: hook.owner },
    key: `default:${rule.name}`,
  };
}

/** The audit's side of the rule: a stored object matching a default-hook rule that lacks its hook. */
export const missingDefaultHookRule: Rule = (ctx) => ({
  violations: missingDefaultHookViolations('default-hooks', ctx),
});

export const defaultHooksRule: CarrierRuleModule<'default-hooks'> = {
  // Validating only in the audit: admission adds the hook rather than refusing an object without it.
  id: 'default-hooks',
  order: 90,
  enforcement: 'deny',
  ratchets: false,
  sources: ['audit'],
  selects: 'carriers',
  facts: [],
  summary: 'mutating: objects matching a default-hook rule get its hook; the audit reports stored objects lacking it',
  validate: missingDefaultHookRule,
  native: { mutating: nativeDefaultHook },
  mutate: {
    writes: (carrier, { policy, input }) =>
      policy.defaultHooks.some((rule) => input.object && defaultHookSelects(rule, input, carrier, input.object))
        ? [carrier.root]
        : [],
    apply: ({ policy, input }, carrier, copy) => applyDefaultHooks(policy, input, carrier, copy),
  },
};

/**
 * What the default-hook rules' verdicts on an UPDATE read: the hooks, the deletion mark and the labels the rules select
 * by (an object comes to match, or stops matching, by its labels).
 */
export function defaultHookReadParts(policy: Policy): ObjectPart[] {
  const keys = new Set<string>();
  for (const r of policy.defaultHooks) {
    for (const k of Object.keys(r.match.labelSelector?.matchLabels ?? {})) keys.add(k);
    for (const e of r.match.labelSelector?.matchExpressions ?? []) keys.add(e.key);
  }
  return ['hooks', 'deletionTimestamp', ...[...keys].map((label) => ({ label }))];
}
