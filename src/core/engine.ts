// The engine: evaluate(policy, input) -> Decision and mutate(policy, input) -> Mutation, one loop each over the
// rule registry (registry.ts), applying enforcement and ratcheting in one place. The webhook, the audit and the
// CLI all call these two functions; they differ only in the input they build (its source and its facts).
import { CARRIERS, carrierFor, type HookCarrier, type HookReading } from './carriers.js';
import { hasChildRules } from '../rules/children-bind.js';
import { isFinalizerOnlyRemoval } from './finalizers.js';
import { copyForWrites, diff } from './patch.js';
import type { Policy } from './policy.js';
import { MUTATING, SELECTS_OBJECTS, VALIDATING } from './registry.js';
import type { InputContext, RuleContext, RuleModule, RuleResult } from '../rules/context.js';
import type { Decision, KubeObject, Mutation, Notice, ReviewInput, RuleId, Violation } from './types.js';

export interface EvaluateOptions {
  /** The hook carriers (default: every kind of carriers.ts); tests and the audit may narrow them. */
  carriers?: readonly HookCarrier[];
}

export const ALLOWED: Decision = Object.freeze({ allowed: true, denials: [], warnings: [], notices: [] });
const MUTATES_OBJECTS = MUTATING.some((r) => r.selects === 'objects');
const NO_HOOKS: HookReading = Object.freeze({ hooks: [], problems: [] });

/** What a hook rule sees of one request: the hooks read from both objects. */
function hookContext(policy: Policy, input: ReviewInput, carrier: HookCarrier): RuleContext {
  return {
    policy,
    input,
    carrier,
    hooks: carrier.read(input.object),
    oldHooks: carrier.read(input.operation === 'UPDATE' ? input.oldObject : null),
  };
}

/** The stored object of an UPDATE judged as if it were created (what ratcheting compares with), or undefined. */
function storedInput(input: ReviewInput): ReviewInput | undefined {
  return input.operation === 'UPDATE' && input.oldObject
    ? { ...input, operation: 'CREATE', object: input.oldObject, oldObject: null }
    : undefined;
}

/** Runs the validating rules of the input's source, each under its enforcement. */
export function evaluate(policy: Policy, input: ReviewInput, options: EvaluateOptions = {}): Decision {
  // DELETE (object null) and kinds without hooks have nothing for the hook rules to judge.
  const carrier = input.object === null ? undefined : carrierFor(input.kind, options.carriers ?? CARRIERS);
  // Child rules select kinds by policy, carrier or not, and judge finalizer removals the hook rules skip.
  const children = hasChildRules(policy, input);
  const source = input.source ?? 'admission';
  if (!carrier && !children && !(SELECTS_OBJECTS[source] && input.object !== null)) return ALLOWED;
  // An UPDATE that only removes finalizers: hook rules skip it unless they judge such updates.
  const finalizerOnly =
    carrier !== undefined && input.operation === 'UPDATE' && isFinalizerOnlyRemoval(input.object, input.oldObject);

  // Contexts are built once per request, and only when a rule of their kind runs.
  let hookCtx: RuleContext | undefined;
  let inputCtx: InputContext | undefined;
  let storedHookCtx: RuleContext | null | undefined;
  let storedInputCtx: InputContext | null | undefined;
  const denials: Violation[] = [];
  const warnings: Violation[] = [];
  const notices: Notice[] = [];
  for (const rule of VALIDATING[source]) {
    const enforcement = policy.enforcement[rule.id];
    if (enforcement === 'off') continue;
    let result: RuleResult;
    if (rule.selects === 'carriers') {
      if (!carrier || !rule.validate || (finalizerOnly && !rule.judgesFinalizerRemovals)) continue;
      result = rule.validate((hookCtx ??= hookContext(policy, input, carrier)));
    } else {
      if (!rule.validate || (rule.selects === 'children' ? !children : input.object === null)) continue;
      result = rule.validate((inputCtx ??= { policy, input }));
    }
    // Loops, not push(...list): a list of 120,000 or more would not fit in a call's arguments.
    if (result.notices) for (const n of result.notices) notices.push(n);
    if (result.violations.length > 0) {
      // The stored object is judged only when the new one has something to ratchet (most updates have nothing).
      let existing: Set<string> | undefined;
      if (rule.ratchets && enforcement === 'deny') {
        let stored: RuleResult | undefined;
        if (rule.selects === 'carriers') {
          if (storedHookCtx === undefined) {
            const old = storedInput(input);
            const now = hookCtx as RuleContext;
            storedHookCtx = old ? { ...now, input: old, hooks: now.oldHooks, oldHooks: NO_HOOKS } : null;
          }
          if (storedHookCtx) stored = rule.validate?.(storedHookCtx);
        } else {
          if (storedInputCtx === undefined) {
            const old = storedInput(input);
            storedInputCtx = old ? { policy, input: old } : null;
          }
          if (storedInputCtx) stored = rule.validate?.(storedInputCtx);
        }
        if (stored) existing = new Set(stored.violations.map((v) => v.key));
      }
      for (const v of result.violations) {
        if (enforcement === 'warn') warnings.push(v);
        else if (!existing?.has(v.key)) denials.push(v);
        else warnings.push(rule.ratchetNote && v.fix ? { ...v, fix: `${v.fix} (${rule.ratchetNote})` } : v);
      }
    }
    if (result.warnings) for (const v of result.warnings) warnings.push(v);
  }
  if (denials.length + warnings.length + notices.length === 0) return ALLOWED;
  return { allowed: denials.length === 0, denials, warnings, notices };
}

/** Runs the mutating rules on one copy of the object (copied only along the paths they write). */
export function mutate(policy: Policy, input: ReviewInput, options: EvaluateOptions = {}): Mutation {
  const none: Mutation = { mutated: null, patch: [], changes: [] };
  const object = input.object;
  if (object === null) return none;
  const carrier = carrierFor(input.kind, options.carriers ?? CARRIERS);
  const children = hasChildRules(policy, input);
  if (!carrier && !children && !MUTATES_OBJECTS) return none;
  const ctx: InputContext = { policy, input };
  const writes: Array<readonly string[]> = [];
  for (const rule of MUTATING) {
    if (!applies(rule, policy, carrier, children)) continue;
    const paths =
      rule.selects === 'carriers'
        ? (rule.mutate?.writes(carrier as HookCarrier, ctx) ?? [])
        : (rule.mutate?.writes ?? []);
    for (const p of paths) writes.push(p);
  }
  // Most CREATEs (a worker Machine) match no rule that writes: no copy, no diff.
  if (writes.length === 0) return none;
  const copy: KubeObject = copyForWrites(object, writes);
  const changes: string[] = [];
  for (const rule of MUTATING) {
    if (!applies(rule, policy, carrier, children)) continue;
    const changed =
      rule.selects === 'carriers'
        ? rule.mutate?.apply(ctx, carrier as HookCarrier, copy)
        : rule.mutate?.apply(ctx, copy);
    for (const c of changed ?? []) changes.push(c);
  }
  const patch = diff(object, copy);
  return patch.length === 0 ? none : { mutated: copy, patch, changes };
}

function applies(
  rule: RuleModule<RuleId>,
  policy: Policy,
  carrier: HookCarrier | undefined,
  children: boolean,
): boolean {
  // Objects are not null here: mutate returns before any rule runs on a DELETE.
  return (
    policy.enforcement[rule.id] !== 'off' &&
    (rule.selects === 'carriers' ? carrier !== undefined : rule.selects === 'children' ? children : true)
  );
}
