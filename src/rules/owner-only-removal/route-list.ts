// What owner-only-removal's two route lists (./routes.ts, removals; ./addition-routes.ts, squatting) do alike: take
// the first route that holds, decide for inputs all given, and read off the condition under which each is first.
import type { Policy } from '../../core/policy.js';
import { and, FALSE, not, TRUE, type Bool, type Env } from '../../core/expr/expr.js';

interface RouteLike {
  name: string;
  holds: Bool;
}

/** The first route that holds for the environment (a list's last always holds). */
export function routeFor<R extends RouteLike>(routes: readonly R[], e: Env): R {
  for (const r of routes) if (r.holds.js(e)) return r;
  throw new Error('owner-only-removal: no route holds');
}

/**
 * The route a list declares for inputs all given, as a function of the policy and the inputs: each condition
 * reduces to a constant (and, or, not fold TRUE and FALSE), so the first that is TRUE decides. Kept per policy, by
 * the inputs' bits.
 */
export function routeForFacts<I extends string, R extends RouteLike>(
  inputs: readonly I[],
  declare: (policy: Policy, table: Readonly<Record<I, Bool>>) => R[],
): (policy: Policy, facts: Readonly<Record<I, boolean>>) => R {
  const byFacts = new WeakMap<Policy, Map<number, R>>();
  return (policy, facts) => {
    let byKey = byFacts.get(policy);
    if (!byKey) byFacts.set(policy, (byKey = new Map<number, R>()));
    const key = inputs.reduce((k, input, bit) => (facts[input] ? k | (1 << bit) : k), 0);
    let route = byKey.get(key);
    if (!route) {
      const table = Object.fromEntries(inputs.map((input) => [input, facts[input] ? TRUE : FALSE]));
      route = declare(policy, table as Record<I, Bool>).find((r) => r.holds === TRUE);
      if (!route) throw new Error('owner-only-removal: no route holds for the given inputs');
      byKey.set(key, route);
    }
    return route;
  };
}

/**
 * The routes as a decision list: each route that can hold, with the condition under which it is the first that
 * does (its own, no earlier one's). A route whose condition an earlier route already took is unreachable.
 */
export function firstHolding<R extends RouteLike>(routes: readonly R[]): Array<{ route: R; first: Bool }> {
  const out: Array<{ route: R; first: Bool }> = [];
  const earlier: Bool[] = [];
  for (const route of routes) {
    if (route.holds === FALSE || earlier.includes(route.holds)) continue;
    // Earlier routes first: the registry and break-glass settle before RBAC is asked.
    out.push({ route, first: and(...earlier.map(not), route.holds) });
    earlier.push(route.holds);
    if (route.holds === TRUE) break;
  }
  return out;
}
