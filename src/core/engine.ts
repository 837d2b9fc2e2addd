// The engine: evaluate(policy, input) -> Decision and mutate(policy, input) -> Mutation, one loop each over the
// rule registry (registry.ts), applying enforcement and ratcheting in one place. The webhook, the audit and the
// CLI all call these two functions; they differ only in the input they build (its source and its facts).
import { CARRIERS, carrierFor, type HookCarrier, type HookReading } from './carriers.js';
import { hasChildRules } from './rules/children-bind.js';
import { isFinalizerOnlyRemoval } from './finalizers.js';
import { copyForWrites, diff } from './patch.js';
import type { Policy } from './policy.js';
import { MUTATING, SELECTS_OBJECTS, VALIDATING } from './registry.js';
import type { InputContext, RuleContext, RuleModule, RuleResult } from './rules/context.js';
import type { Decision, KubeObject, Mutation, Notice, ReviewInput, RuleId, Violation } from './types.js';

export interface EvaluateOptions {
  /** The hook carriers (default: every kind of carriers.ts); tests and the audit may narrow them. */
  carriers?: readonly HookCarrier[];
}

export const ALLOWED: Decision = Object.freeze({ allowed: true, denials: [], warnings: [], notices: [] });
const MUTATES_OBJECTS = MUTATING.some((r) => r.selects === 'objects');
const NO_HOOKS: HookReading = Object.freeze({ hooks: [], problems: [] });

/**
 * What one request's rules see, built at most once per request and only when a rule of that kind runs: the
 * hooks of both objects, and for ratcheting the stored object judged as if it were created.
 */
class Scope {
  private hookCtx: RuleContext | undefined;
  private oldHookCtx: RuleContext | undefined;
  private oldInputCtx: InputContext | undefined;

  constructor(
    readonly ctx: InputContext,
    readonly carrier: HookCarrier | undefined,
    /** An UPDATE that only removes finalizers: hook rules skip it unless they judge such updates. */
    readonly finalizerOnly: boolean,
    readonly children: boolean,
  ) {}

  hooks(carrier: HookCarrier): RuleContext {
    if (!this.hookCtx) {
      const { policy, input } = this.ctx;
      this.hookCtx = {
        policy, input, carrier,
        hooks: carrier.read(input.object),
        oldHooks: carrier.read(input.operation === 'UPDATE' ? input.oldObject : null),
      };
    }
    return this.hookCtx;
  }

  /** The stored object as a CREATE, or undefined when there is none (only UPDATE ratchets). */
  private oldInput(): ReviewInput | undefined {
    const { input } = this.ctx;
    return input.operation === 'UPDATE' && input.oldObject ? { ...input, operation: 'CREATE', object: input.oldObject, oldObject: null } : undefined;
  }

  /** The keys of the violations `rule` finds in the stored object; undefined when nothing is stored. */
  existing(rule: RuleModule<RuleId>): Set<string> | undefined {
    let result: RuleResult | undefined;
    if (rule.selects === 'carriers') {
      if (!rule.validate || !this.carrier) return undefined;
      if (!this.oldHookCtx) {
        const old = this.oldInput();
        if (!old) return undefined;
        const now = this.hooks(this.carrier);
        this.oldHookCtx = { ...now, input: old, hooks: now.oldHooks, oldHooks: NO_HOOKS };
      }
      result = rule.validate(this.oldHookCtx);
    } else {
      if (!rule.validate) return undefined;
      if (!this.oldInputCtx) {
        const old = this.oldInput();
        if (!old) return undefined;
        this.oldInputCtx = { policy: this.ctx.policy, input: old };
      }
      result = rule.validate(this.oldInputCtx);
    }
    return new Set(result.violations.map((v) => v.key));
  }
}

/** Runs the validating rules of the input's source, each under its enforcement. */
export function evaluate(policy: Policy, input: ReviewInput, options: EvaluateOptions = {}): Decision {
  // DELETE (object null) and kinds without hooks have nothing for the hook rules to judge.
  const carrier = input.object === null ? undefined : carrierFor(input.kind, options.carriers ?? CARRIERS);
  // Child rules select kinds by policy, carrier or not, and judge finalizer removals the hook rules skip.
  const children = hasChildRules(policy, input);
  const source = input.source ?? 'admission';
  if (!carrier && !children && !(SELECTS_OBJECTS[source] && input.object !== null)) return ALLOWED;
  const finalizerOnly = carrier !== undefined && input.operation === 'UPDATE' && isFinalizerOnlyRemoval(input.object, input.oldObject);
  const scope = new Scope({ policy, input }, carrier, finalizerOnly, children);

  const denials: Violation[] = [];
  const warnings: Violation[] = [];
  const notices: Notice[] = [];
  for (const rule of VALIDATING[source]) {
    const enforcement = policy.enforcement[rule.id];
    if (enforcement === 'off') continue;
    let result: RuleResult;
    if (rule.selects === 'carriers') {
      if (!carrier || !rule.validate || (finalizerOnly && !rule.judgesFinalizerRemovals)) continue;
      result = rule.validate(scope.hooks(carrier));
    } else {
      if (!rule.validate || (rule.selects === 'children' ? !children : input.object === null)) continue;
      result = rule.validate(scope.ctx);
    }
    // Loops, not push(...list): a list of 120,000 or more would not fit in a call's arguments.
    if (result.notices) for (const n of result.notices) notices.push(n);
    if (result.violations.length > 0) {
      // The stored object is judged only when the new one has something to ratchet (most updates have nothing).
      const existing = rule.ratchets && enforcement === 'deny' ? scope.existing(rule) : undefined;
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
  let writes: Array<readonly string[]> | undefined;
  for (const rule of MUTATING) {
    if (!applies(rule, policy, carrier, children)) continue;
    writes ??= [];
    const paths = rule.selects === 'carriers' ? rule.mutate?.writes(carrier as HookCarrier) ?? [] : rule.mutate?.writes ?? [];
    for (const p of paths) writes.push(p);
  }
  if (!writes) return none;
  const copy: KubeObject = copyForWrites(object, writes);
  const ctx: InputContext = { policy, input };
  const changes: string[] = [];
  for (const rule of MUTATING) {
    if (!applies(rule, policy, carrier, children)) continue;
    const changed = rule.selects === 'carriers' ? rule.mutate?.apply(ctx, carrier as HookCarrier, copy) : rule.mutate?.apply(ctx, copy);
    for (const c of changed ?? []) changes.push(c);
  }
  const patch = diff(object, copy);
  return patch.length === 0 ? none : { mutated: copy, patch, changes };
}

function applies(rule: RuleModule<RuleId>, policy: Policy, carrier: HookCarrier | undefined, children: boolean): boolean {
  // Objects are not null here: mutate returns before any rule runs on a DELETE.
  return policy.enforcement[rule.id] !== 'off' && (rule.selects === 'carriers' ? carrier !== undefined : rule.selects === 'children' ? children : true);
}
