// The engine: evaluate(policy, input) -> Decision and mutate(policy, input) -> Mutation. The webhook, the
// audit and the CLI all call these two functions; they differ only in how they build the input.
import { CARRIERS, carrierFor, type HookCarrier } from './carriers.js';
import { applyChildren, CHILD_WRITES, evaluateChildren, hasChildRules } from './children.js';
import { isFinalizerOnlyRemoval } from './finalizers.js';
import { required } from './field-errors.js';
import { quote } from './guards.js';
import { copyForWrites, diff } from './patch.js';
import type { Policy } from './policy.js';
import type { Rule, RuleContext } from './rules/context.js';
import { applyDefaultHooks, missingDefaultHooks } from './rules/default-hooks.js';
import { deletionFreeze } from './rules/deletion-freeze.js';
import { hookNaming } from './rules/naming.js';
import { ownerOnlyRemoval } from './rules/owner-only-removal.js';
import { ownerReferences } from './rules/owner-references.js';
import { singleOwner } from './rules/single-owner.js';
import type { Decision, Mutation, Notice, ReviewInput, RuleId, Violation } from './types.js';

const VALIDATING_RULES: ReadonlyArray<[RuleId, Rule]> = [
  ['hook-naming', hookNaming],
  ['single-owner', singleOwner],
  ['owner-only-removal', ownerOnlyRemoval],
  ['deletion-freeze', deletionFreeze],
  ['owner-references', ownerReferences],
];

/**
 * Rules about the object's own content. On UPDATE, a problem the stored object already had is reported
 * as a warning rather than denied (as the API server ratchets CRD validation), so an unrelated edit, or
 * the edit that fixes another problem, is never blocked by history.
 */
const RATCHETED: ReadonlySet<RuleId> = new Set(['hook-naming', 'single-owner', 'owner-references']);

export interface EvaluateOptions {
  /** `audit` also reports what only a stored object can lack (missing default hooks). */
  mode?: 'admission' | 'audit';
  carriers?: readonly HookCarrier[];
}

export const ALLOWED: Decision = Object.freeze({ allowed: true, denials: [], warnings: [], notices: [] });

export function evaluate(policy: Policy, input: ReviewInput, options: EvaluateOptions = {}): Decision {
  const hooks = evaluateHooks(policy, input, options);
  // Child rules select kinds by policy, carrier or not, and judge finalizer removals the hook rules skip.
  const children = evaluateChildren(policy, input, options.mode);
  if (children.denials.length + children.warnings.length + children.notices.length === 0) return hooks;
  const denials = [...hooks.denials, ...children.denials];
  return { allowed: denials.length === 0, denials, warnings: [...hooks.warnings, ...children.warnings], notices: [...hooks.notices, ...children.notices] };
}

function evaluateHooks(policy: Policy, input: ReviewInput, options: EvaluateOptions): Decision {
  const carrier = carrierFor(input.kind, options.carriers ?? CARRIERS);
  // DELETE (object null) and kinds without hooks have nothing for these rules to judge.
  if (!carrier || input.object === null) return ALLOWED;
  if (input.operation === 'UPDATE' && isFinalizerOnlyRemoval(input.object, input.oldObject)) return ALLOWED;

  const ctx: RuleContext = {
    policy,
    input,
    carrier,
    hooks: carrier.read(input.object),
    oldHooks: carrier.read(input.operation === 'UPDATE' ? input.oldObject : null),
  };
  const oldCtx: RuleContext | null = input.operation === 'UPDATE' && input.oldObject
    ? { ...ctx, input: { ...input, operation: 'CREATE', object: input.oldObject, oldObject: null }, hooks: ctx.oldHooks, oldHooks: { hooks: [], problems: [] } }
    : null;

  const denials: Violation[] = [];
  const warnings: Violation[] = [];
  const notices: Notice[] = [];
  for (const [id, rule] of VALIDATING_RULES) {
    const enforcement = policy.enforcement[id];
    if (enforcement === 'off') continue;
    const result = rule(ctx);
    // A loop, not push(...list): a list of 120,000 or more would not fit in a call's arguments.
    for (const n of result.notices ?? []) notices.push(n);
    // The stored object is judged only when the new one has something to ratchet (most updates have nothing).
    const existing = oldCtx && RATCHETED.has(id) && result.violations.length > 0 ? new Set(rule(oldCtx).violations.map((v) => v.key)) : undefined;
    for (const v of result.violations) {
      if (enforcement === 'warn' || existing?.has(v.key)) warnings.push(v);
      else denials.push(v);
    }
  }

  if (options.mode === 'audit' && policy.enforcement['default-hooks'] !== 'off') {
    for (const m of missingDefaultHooks(policy, input, carrier)) {
      const stage = m.stage as 'preDrain' | 'preTerminate';
      const path = carrier.stagePath(stage);
      const v: Violation = {
        rule: 'default-hooks',
        path,
        message: required(path, `default hook ${quote(m.name)} owned by ${quote(m.owner)} is missing (policy rule ${quote(m.rule)})`).message,
        fix: `add ${carrier.hookText(stage, m.name, m.owner)} to ${path}; hookkeeper's mutating webhook adds it on create`,
        hook: { stage, name: m.name, owner: m.owner },
        key: `default:${m.rule}`,
      };
      (policy.enforcement['default-hooks'] === 'warn' ? warnings : denials).push(v);
    }
  }
  return { allowed: denials.length === 0, denials, warnings, notices };
}

export function mutate(policy: Policy, input: ReviewInput, options: Pick<EvaluateOptions, 'carriers'> = {}): Mutation {
  const none: Mutation = { mutated: null, patch: [], changes: [] };
  const carrier = carrierFor(input.kind, options.carriers ?? CARRIERS);
  const hooks = carrier && policy.enforcement['default-hooks'] !== 'off' ? carrier : undefined;
  if (input.object === null || (!hooks && !hasChildRules(policy, input))) return none;
  const copy = copyForWrites(input.object, [...(hooks ? [hooks.root] : []), ...(hasChildRules(policy, input) ? CHILD_WRITES : [])]);
  const changes = hooks ? applyDefaultHooks(policy, input, hooks, copy) : [];
  changes.push(...applyChildren(policy, input, copy));
  const patch = diff(input.object, copy);
  return patch.length === 0 ? none : { mutated: copy, patch, changes };
}
