// Each hook against a list of constraints, compiled once for both engines: the webhook reports every constraint a
// hook breaks, as the API server's schema validation lists each; native mode reports the first one it breaks, the
// webhook's first for that hook (a validation has one message). A hook the stored object had as it is (`stored`)
// only warns, as the engine ratchets the webhook's violations by key: a constraint's key must be the stored one's
// exactly when `stored` holds.
import type { Hook, HookCarrier } from '../carriers.js';
import { celCarrier } from '../cel/carrier.js';
import { capitalize, cel, celVariable } from '../cel/text.js';
import type {
  CelVariable,
  NativeContext,
  NativeValidating,
  NativeValidatingForm,
  NativeValidation,
} from '../cel/types.js';
import type { Rule } from '../../rules/context.js';
import type { RuleId, Violation } from '../types.js';
import { compiledPer, enter } from './compiled.js';
import { and, cond, not, or, type Bool, type Str } from './expr.js';
import { stageView, type HookEnv, type HookVar, type StageView } from './hooks.js';

export interface Constraint {
  /** True when the hook meets it. */
  holds: Bool;
  /** What breaking it says. */
  message: Str;
  /** What its violation points at: a field of the hook, the hook, or its stage (a Cluster API key's annotations). */
  at: 'name' | 'owner' | 'hook' | 'stage';
  /** How to fix it (the webhook's and the CLI's; native mode has room for the message only). */
  fix: (h: Hook) => string;
  /** What ratcheting compares: the stored object's violation has the same key exactly when `stored` holds. */
  key: (h: Hook) => string;
}

/** Native mode's check of a long list in slices, one variable each, read only as far as the list goes. */
export interface Slices {
  /** The variables' names start with it. */
  variable: string;
  size: number;
  count: number;
  /** The first Kubernetes minor whose CEL has lists.slice; earlier ones check a stage in one expression. */
  fromMinor: number;
}

export interface ConstraintCheck {
  rule: RuleId;
  carriers: (carrier: HookCarrier) => boolean;
  /** In the order the webhook lists their violations; a costly one after those that bound what it reads. */
  constraints: (h: HookVar, s: StageView) => readonly Constraint[];
  /** The stored object had this hook as it is, so it broke the same constraints (read before them in CEL). */
  stored: (h: HookVar, s: StageView) => Bool;
  reason: 'Invalid' | 'Forbidden';
  /** Violations carry their hook (stage, name, owner), for `validate` and `explain`. */
  namesHook?: boolean;
  /**
   * JavaScript only: hooks of this review the rule words itself (a field that is not a string, which the CRDs'
   * schemas refuse, so CEL never sees one); undefined when there are none.
   */
  skips?: (env: HookEnv) => ((hook: Hook) => boolean) | undefined;
  slices?: Slices;
}

interface CompiledStage {
  view: StageView;
  h: HookVar;
  constraints: readonly Constraint[];
  passes: Bool;
  /** The first constraint broken: evaluated only where one is. */
  first: Str;
  stored: Bool;
}

/** The message of the first constraint that does not hold, the last one's when none before it fails. */
export function firstBroken(constraints: readonly Pick<Constraint, 'holds' | 'message'>[]): Str {
  const last = constraints[constraints.length - 1];
  if (!last) throw new Error('a constraint check needs a constraint');
  let out = last.message;
  for (let k = constraints.length - 2; k >= 0; k--) {
    const c = constraints[k] as Pick<Constraint, 'holds' | 'message'>;
    out = cond(c.holds, out, c.message);
  }
  return out;
}

export function constraintCheck(check: ConstraintCheck): { validate: Rule; native: NativeValidatingForm } {
  const compile = compiledPer((_policy, carrier) => ({
    when: undefined,
    stages: celCarrier(carrier).stages.map((cs): CompiledStage => {
      const view = stageView(carrier, cs);
      const h = view.hook();
      const constraints = check.constraints(h, view);
      return {
        view,
        h,
        constraints,
        passes: and(...constraints.map((c) => c.holds)),
        first: firstBroken(constraints),
        stored: check.stored(h, view),
      };
    }),
  }));

  const validate: Rule = (ctx) => {
    const entered = enter(check.carriers, compile, ctx);
    if (!entered) return { violations: [] };
    const { compiled, env } = entered;
    const skip = check.skips?.(env);
    const violations: Violation[] = [];
    for (const { view, h, constraints, passes } of compiled.stages) {
      for (const hook of view.hooks.js(env)) {
        if (skip?.(hook)) continue;
        h.set(hook);
        if (passes.js(env)) continue;
        for (const c of constraints) {
          if (c.holds.js(env)) continue;
          violations.push({
            rule: check.rule,
            path:
              c.at === 'name'
                ? hook.namePath
                : c.at === 'owner'
                  ? hook.ownerPath
                  : c.at === 'hook'
                    ? hook.path
                    : view.stagePath,
            message: c.message.js(env),
            fix: c.fix(hook),
            ...(check.namesHook ? { hook: { stage: hook.stage, name: hook.name, owner: hook.owner } } : {}),
            key: c.key(hook),
          });
        }
      }
    }
    return { violations };
  };

  const validating = ({ policy, view, k8sMinor }: NativeContext): NativeValidating => {
    if (!check.carriers(view.carrier)) return { variables: [], validations: [] };
    const variables: CelVariable[] = [];
    const validations: NativeValidation[] = [];
    const slices = check.slices && k8sMinor >= check.slices.fromMinor ? check.slices : undefined;
    for (const { view: s, passes, first, stored } of compile(policy, view.carrier).stages) {
      // The stored object's index first: an unchanged hook is settled by one lookup, not its constraints.
      for (const [outcome, ok] of [
        ['enforced', or(stored, passes)],
        ['existing', or(not(stored), passes)],
      ] as const) {
        if (!slices) {
          validations.push({
            outcome,
            expression: cel`${s.hooks.cel}.all(h, ${ok.cel})`,
            messageExpression: cel`${s.hooks.cel}.transformList(i, h, !${ok.cel}, ${first.cel})[0]`,
            reason: check.reason,
          });
          continue;
        }
        const found = sliced(slices, `${capitalize(outcome)}${capitalize(s.stage)}`, s, ok, variables);
        validations.push({
          outcome,
          expression: cel`size(${found}) == 0`,
          messageExpression: cel`[${found}[0]].map(i, [${s.hooks.cel}[i]].map(h, ${first.cel})[0])[0]`,
          reason: check.reason,
        });
      }
    }
    return { variables, validations };
  };

  // The stored object's index, read by `stored` as ratcheting reads it.
  return { validate, native: { validating, readsNameIndex: true } };
}

/**
 * The indexes of the hooks that fail `ok`, slice by slice: slice c, then the rest as the next variable, read only
 * when the list is longer, so a short list costs one variable. Past count * size hooks the last slice takes the rest:
 * its cost may pass the limit, and the evaluation error refuses the request (failurePolicy Fail), never skips it.
 */
function sliced(slices: Slices, suffix: string, s: StageView, ok: Bool, variables: CelVariable[]) {
  const bad = `${slices.variable}${suffix}`;
  const hooks = s.hooks.cel;
  for (let c = slices.count - 1; c >= 0; c--) {
    const [lo, hi] = [c * slices.size, (c + 1) * slices.size];
    const slice = cel`${hooks}.slice(${lo}, size(${hooks}) < ${hi} ? size(${hooks}) : ${hi}).transformList(i, h, !${ok.cel}, i + ${lo})`;
    const rest = cel`${hooks}.slice(${lo}, size(${hooks})).transformList(i, h, !${ok.cel}, i + ${lo})`;
    variables.push({
      name: `${bad}${c === 0 ? '' : c}`,
      expression:
        c === slices.count - 1
          ? cel`size(${hooks}) <= ${lo} ? [] : ${rest}`
          : cel`size(${hooks}) <= ${lo} ? [] : ${slice} + (size(${hooks}) <= ${hi} ? [] : ${celVariable(`${bad}${c + 1}`)})`,
    });
  }
  return celVariable(bad);
}
