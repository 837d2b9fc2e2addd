// Compiled once per policy and carrier: both are fixed for the life of a server, an audit or a validate run, so a
// rule's expressions are built on its first review and reused.
import type { HookCarrier } from '../carriers.js';
import type { Policy } from '../policy.js';
import type { RuleContext } from '../../rules/context.js';
import type { Variable } from './expr.js';
import { HookEnv } from './hooks.js';

export function compiledPer<T>(build: (policy: Policy, carrier: HookCarrier) => T): (p: Policy, c: HookCarrier) => T {
  const cache = new WeakMap<Policy, Map<string, T>>();
  // The last one asked for, before any lookup: a server asks for the same policy and a few carriers all day.
  let last: { policy: Policy; carrier: HookCarrier; compiled: T } | undefined;
  return (policy, carrier) => {
    if (last?.policy === policy && last.carrier === carrier) return last.compiled;
    let byCarrier = cache.get(policy);
    if (!byCarrier) cache.set(policy, (byCarrier = new Map<string, T>()));
    let compiled = byCarrier.get(carrier.id);
    if (compiled === undefined) {
      compiled = build(policy, carrier);
      byCarrier.set(carrier.id, compiled);
    }
    last = { policy, carrier, compiled };
    return compiled;
  };
}

// The last review's: the engine runs one review's rules one after another (a WeakMap keyed by each review's
// reading cost more than it saved).
let lastEnv: HookEnv | undefined;

/**
 * The environment of one review's hooks, shared by every rule written with expressions (and every shape of one
 * rule), so a review reads its well-formed hooks and their indexes once. Matched by the engine's readings of the
 * hooks, made once per review; the stored object's run has readings of its own.
 */
export function hookEnvOf({
  policy,
  input,
  hooks,
  oldHooks,
}: Pick<RuleContext, 'policy' | 'input' | 'hooks' | 'oldHooks'>): HookEnv {
  if (lastEnv?.hooks === hooks && lastEnv.oldHooks === oldHooks && lastEnv.input === input && lastEnv.policy === policy)
    return lastEnv;
  return (lastEnv = new HookEnv(hooks, oldHooks, input, policy));
}

/**
 * A hook rule shape's way in, for one review: nothing for a carrier it does not judge or a request its `when` leaves
 * out; else its compiled stages and the environment they read.
 */
export function enter<C extends { when: Variable<boolean> | undefined }>(
  judges: (carrier: HookCarrier) => boolean,
  compile: (p: Policy, c: HookCarrier) => C,
  ctx: RuleContext,
): { compiled: C; env: HookEnv } | undefined {
  if (!judges(ctx.carrier)) return undefined;
  const compiled = compile(ctx.policy, ctx.carrier);
  const env = hookEnvOf(ctx);
  if (compiled.when && !compiled.when.value.js(env)) return undefined;
  return { compiled, env };
}
