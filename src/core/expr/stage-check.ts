// A check of a whole stage, compiled once for both engines: every hook of a stage must pass a predicate, and a stage
// where some do not is one violation whose message lists them (the deletion freeze's shape, after
// machine-api-operator, which names every offending hook of a stage at once).
import type { Hook, HookCarrier } from '../carriers.js';
import { celCarrier } from '../cel/carrier.js';
import { cel, celString } from '../cel/text.js';
import type { NativeContext, NativeForm, NativeValidating } from '../cel/types.js';
import { MAX_VIOLATION_BYTES } from '../messages/limits.js';
import type { Policy } from '../policy.js';
import type { RuleId, Stage, Violation } from '../types.js';
import type { Rule } from '../../rules/context.js';
import { leaf, type Bool, type Str, type Variable } from './expr.js';
import { compiledPer, enter } from './compiled.js';
import { readsStored, stageView, type HookVar, type StageView } from './hooks.js';

export interface StageCheck {
  rule: RuleId;
  when?: (policy: Policy) => Variable<boolean>;
  carriers?: (carrier: HookCarrier) => boolean;
  passes: (h: HookVar, s: StageView) => Bool;
  /** How one failing hook is listed, and the separator between them. */
  item: (h: HookVar) => Str;
  separator: string;
  /** The stage's message, given the list of its failing hooks. */
  message: (s: StageView, failing: Str) => Str;
  fix: string;
  /** Ratcheting, and repeated hooks, compare it: one key per stage and the set of hooks that fail. */
  key: (stage: Stage, failing: readonly Hook[]) => string;
  reason: 'Invalid' | 'Forbidden';
}

interface Compiled {
  when: Variable<boolean> | undefined;
  stages: { view: StageView; h: HookVar; passes: Bool; message: Str; listing: (hooks: readonly Hook[]) => void }[];
}

/** The failing hooks' items, joined: in JavaScript over the list the current evaluation filtered. */
function failingList(s: StageView, h: HookVar, passes: Bool, item: Str, separator: string) {
  let failing: readonly Hook[] = [];
  const text = leaf<string>(
    cel`${s.hooks.cel}.filter(h, !${passes.cel}).map(h, ${item.cel}).join(${celString(separator)})`,
    (env) =>
      failing
        .map((hook) => {
          h.set(hook);
          return item.js(env);
        })
        .join(separator),
  );
  return { text, use: (hooks: readonly Hook[]) => (failing = hooks) };
}

export function stageCheck(check: StageCheck): { validate: Rule; native: NativeForm } {
  const judges = check.carriers ?? (() => true);
  const compile = compiledPer<Compiled>((policy, carrier) => ({
    when: check.when?.(policy),
    stages: celCarrier(carrier).stages.map((cs) => {
      const view = stageView(carrier, cs);
      const h = view.hook();
      const passes = check.passes(h, view);
      const failing = failingList(view, h, passes, check.item(h), check.separator);
      return { view, h, passes, message: check.message(view, failing.text), listing: failing.use };
    }),
  }));

  const validate: Rule = (ctx) => {
    const entered = enter(judges, compile, ctx);
    if (!entered) return { violations: [] };
    const { compiled, env } = entered;
    const violations: Violation[] = [];
    for (const { view, h, passes, message, listing } of compiled.stages) {
      const bad = view.hooks.js(env).filter((hook) => (h.set(hook), !passes.js(env)));
      if (bad.length === 0) continue;
      listing(bad);
      violations.push({
        rule: check.rule,
        path: view.stagePath,
        message: message.js(env),
        fix: check.fix,
        key: check.key(view.stage, bad),
      });
    }
    return { violations };
  };

  const validating = ({ policy, view }: NativeContext): NativeValidating => {
    if (!judges(view.carrier)) return { variables: [], validations: [] };
    const { when, stages } = compile(policy, view.carrier);
    const max = MAX_VIOLATION_BYTES;
    return {
      variables: when ? [when.declaration] : [],
      validations: stages.map(({ view: s, passes, message }) => {
        const all = cel`${s.hooks.cel}.all(h, ${passes.cel})`;
        // Cut as the webhook cuts one violation (MAX_VIOLATION_BYTES, counted in characters here), under the API
        // server's 5 KiB limit on an evaluated message; built once, and only when `when` holds (the API server
        // evaluates every message expression on every request).
        const clipped = cel`[${message.cel}].map(m, size(m) > ${max} ? m.substring(0, ${max - 3}) + '...' : m)[0]`;
        return {
          outcome: 'enforced' as const,
          expression: when ? cel`!${when.cel} || ${all}` : all,
          messageExpression: when ? cel`!${when.cel} ? '' : ${clipped}` : clipped,
          reason: check.reason,
        };
      }),
    };
  };

  return { validate, native: { validating, readsNameIndex: readsStored(check.passes) } };
}
