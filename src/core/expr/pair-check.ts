// A check of each hook of one stage against the hooks of another stage it names, compiled once for both engines
// (the cross-stage owner check: each preTerminate hook against each preDrain hook of its name). Each pair that fails
// is a violation, keyed by both hooks; native mode's validations refuse a new one and warn of a stored one
// (`wasStored`, the CEL's reading of the key), named by the first failing hook and its first failing partner.
import type { Hook, HookCarrier } from '../carriers.js';
import { celCarrier } from '../cel/carrier.js';
import { cel } from '../cel/text.js';
import type { NativeContext, NativeValidatingForm, NativeValidating, NativeValidation } from '../cel/types.js';
import type { Rule } from '../../rules/context.js';
import type { RuleId, Stage, Violation } from '../types.js';
import { compiledPer, enter } from './compiled.js';
import { bound, not, or, type Bool, type Str } from './expr.js';
import { stageView, type HookVar, type StageView } from './hooks.js';
import { at, every, filter, type List } from './lists.js';

export interface PairCheck {
  rule: RuleId;
  /** The stage whose hooks are judged, and the stage their partners are looked up in. */
  stage: Stage;
  partnerStage: Stage;
  /** The identities in the partner stage that hook h pairs with, looked up in its index. */
  partners: (h: HookVar, p: StageView) => List<string>;
  passes: (h: HookVar, c: Str, p: StageView) => Bool;
  /** This pair's violation was the stored object's too: what the engine's comparison of `key`s finds. */
  wasStored: (h: HookVar, c: Str, s: StageView, p: StageView) => Bool;
  message: (h: HookVar, c: Str, p: StageView) => Str;
  at: 'name' | 'owner' | 'hook';
  /** How to fix, and the ratcheting key, of a failing pair (the webhook's and the CLI's only). */
  fix: (h: Hook, partner: Hook) => string;
  key: (h: Hook, partner: Hook) => string;
  reason: 'Invalid' | 'Forbidden';
  /** Violations carry their hook (stage, name, owner), for `validate` and `explain`. */
  namesHook?: boolean;
}

interface Compiled {
  when: undefined;
  s: StageView;
  h: HookVar;
  c: ReturnType<typeof bound<string>>;
  partners: List<string>;
  passes: Bool;
  message: Str;
  native: NativeValidation[];
}

export function pairCheck(check: PairCheck): { validate: Rule; native: NativeValidatingForm } {
  const judges = (carrier: HookCarrier) =>
    carrier.stages.includes(check.stage) && carrier.stages.includes(check.partnerStage);
  const compile = compiledPer((_policy, carrier): Compiled => {
    const stages = celCarrier(carrier).stages;
    const find = (stage: Stage) => stageView(carrier, stages.find((x) => x.stage === stage) as (typeof stages)[0]);
    const [s, p] = [find(check.stage), find(check.partnerStage)];
    const h = s.hook();
    const c = bound<string>('c');
    const partners = check.partners(h, p);
    const outcomes = [
      ['enforced', (x: Str) => or(check.passes(h, x, p), check.wasStored(h, x, s, p))],
      ['existing', (x: Str) => or(check.passes(h, x, p), not(check.wasStored(h, x, s, p)))],
    ] as const;
    const native = outcomes.map(([outcome, ok]): NativeValidation => {
      const passes = every(partners, 'c', ok);
      const failing = at(
        filter(partners, 'c', (x) => not(ok(x))),
        0,
      );
      return {
        outcome,
        expression: cel`${s.hooks.cel}.all(h, ${passes.cel})`,
        messageExpression: cel`${s.hooks.cel}.transformList(i, h, !${passes.cel}, ${check.message(h, failing, p).cel})[0]`,
        reason: check.reason,
      };
    });
    return {
      when: undefined,
      s,
      h,
      c,
      partners,
      passes: check.passes(h, c, p),
      message: check.message(h, c, p),
      native,
    };
  });

  const validate: Rule = (ctx) => {
    const entered = enter(judges, compile, ctx);
    if (!entered) return { violations: [] };
    const { compiled, env } = entered;
    const { s, h, c, partners, passes, message } = compiled;
    const violations: Violation[] = [];
    // The partner the index holds for each identity: the first, where a stage names one twice. Built once, so a
    // stage of one name over and over stays linear.
    let byId: Map<string, Hook> | undefined;
    for (const hook of s.hooks.js(env)) {
      h.set(hook);
      for (const id of partners.js(env)) {
        c.set(id);
        if (passes.js(env)) continue;
        if (byId === undefined) {
          byId = new Map();
          for (const x of env.stage(check.partnerStage, false)) if (!byId.has(x.id)) byId.set(x.id, x);
        }
        const partner = byId.get(id);
        if (!partner) continue;
        violations.push({
          rule: check.rule,
          path: check.at === 'name' ? hook.namePath : check.at === 'owner' ? hook.ownerPath : hook.path,
          message: message.js(env),
          fix: check.fix(hook, partner),
          ...(check.namesHook ? { hook: { stage: hook.stage, name: hook.name, owner: hook.owner } } : {}),
          key: check.key(hook, partner),
        });
      }
    }
    return { violations };
  };

  const validating = ({ policy, view }: NativeContext): NativeValidating =>
    judges(view.carrier)
      ? { variables: [], validations: compile(policy, view.carrier).native }
      : { variables: [], validations: [] };

  return { validate, native: { validating, readsNameIndex: true } };
}
