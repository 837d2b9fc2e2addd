// The shape most hook rules have, compiled once for both engines: every hook of every stage must pass a predicate,
// and each one that does not is a violation with the rule's message. From one declaration come the TypeScript
// rule's violations (one per hook, keyed as ratcheting compares them) and the native validations (one pass per
// stage; with ratcheting, a stored hook's violation only warns, as the engine ratchets the webhook's).
import type { Hook, HookCarrier } from '../carriers.js';
import { celCarrier } from '../cel/carrier.js';
import { cel } from '../cel/text.js';
import type { NativeContext, NativeValidatingForm, NativeValidating, NativeValidation } from '../cel/types.js';
import { quote } from '../guards.js';
import type { Policy } from '../policy.js';
import type { RuleId, Violation } from '../types.js';
import type { Rule } from '../../rules/context.js';
import { not, or, type Bool, type Str, type Variable } from './expr.js';
import { compiledPer, enter } from './compiled.js';
import { readsStored, stageView, type HookVar, type StageView } from './hooks.js';

export interface HookCheck {
  rule: RuleId;
  /** Judged only where this holds (a policy variable, so native mode evaluates it once per request). */
  when?: (policy: Policy) => Variable<boolean>;
  /** Policy variables its predicate reads (a map the policy fixes), declared in native mode once per policy. */
  variables?: readonly Variable<unknown>[];
  /** Which carriers it judges at all; every one by default. */
  carriers?: (carrier: HookCarrier) => boolean;
  passes: (h: HookVar, s: StageView) => Bool;
  message: (h: HookVar, s: StageView) => Str;
  /** What a violation points at. */
  at: 'name' | 'owner' | 'hook';
  /** How to fix it: the webhook's and the CLI's (native mode has room for the message only). */
  fix: (h: Hook) => string;
  /** A stored hook's violation only warns: must match the module's `ratchets`. */
  ratchets: boolean;
  reason: 'Invalid' | 'Forbidden';
  /** Violations carry their hook (stage, name, owner), for `validate` and `explain`. */
  namesHook?: boolean;
  /** What repeated violations and `validate` compare them by; by default the rule, identity and owner. */
  key?: (h: Hook) => string;
}

interface Compiled {
  when: Variable<boolean> | undefined;
  stages: { view: StageView; h: HookVar; passes: Bool; message: Str }[];
}

function compiler(check: HookCheck) {
  return compiledPer<Compiled>((policy, carrier) => ({
    when: check.when?.(policy),
    stages: celCarrier(carrier).stages.map((s) => {
      const stage = stageView(carrier, s);
      const h = stage.hook();
      return { view: stage, h, passes: check.passes(h, stage), message: check.message(h, stage) };
    }),
  }));
}

export function hookCheck(check: HookCheck): { validate: Rule; native: NativeValidatingForm } {
  const compile = compiler(check);
  const judges = check.carriers ?? (() => true);

  const validate: Rule = (ctx) => {
    const entered = enter(judges, compile, ctx);
    if (!entered) return { violations: [] };
    const { compiled, env } = entered;
    const violations: Violation[] = [];
    for (const { view, h, passes, message } of compiled.stages) {
      for (const hook of view.hooks.js(env)) {
        h.set(hook);
        if (passes.js(env)) continue;
        const path = check.at === 'name' ? hook.namePath : check.at === 'owner' ? hook.ownerPath : hook.path;
        violations.push({
          rule: check.rule,
          path,
          message: message.js(env),
          fix: check.fix(hook),
          ...(check.namesHook ? { hook: { stage: hook.stage, name: hook.name, owner: hook.owner } } : {}),
          // What the CEL's wasStored compares: identity and owner.
          key: check.key?.(hook) ?? `${check.rule}:${hook.stage}:${quote(hook.id)}:${quote(hook.owner)}`,
        });
      }
    }
    return { violations };
  };

  const validating = ({ policy, view }: NativeContext): NativeValidating => {
    if (!judges(view.carrier)) return { variables: [], validations: [] };
    const { when, stages } = compile(policy, view.carrier);
    const validations: NativeValidation[] = [];
    for (const { view: s, h, passes, message } of stages) {
      const outcomes = check.ratchets
        ? ([
            ['enforced', or(passes, s.wasStored(h))],
            ['existing', or(passes, not(s.wasStored(h)))],
          ] as const)
        : ([['enforced', passes]] as const);
      for (const [outcome, ok] of outcomes) {
        const all = cel`${s.hooks.cel}.all(h, ${ok.cel})`;
        const first = cel`${s.hooks.cel}.transformList(i, h, !${ok.cel}, ${message.cel})[0]`;
        validations.push({
          outcome,
          expression: when ? cel`!${when.cel} || ${all}` : all,
          messageExpression: when ? cel`!${when.cel} ? '' : ${first}` : first,
          reason: check.reason,
        });
      }
    }
    const own = (check.variables ?? []).map((v) => v.declaration);
    return { variables: when ? [when.declaration, ...own] : own, validations };
  };

  // Ratcheting compares with the stored hooks (wasStored) as a predicate may.
  return { validate, native: { validating, readsNameIndex: check.ratchets || readsStored(check.passes) } };
}
