// A check of each element of a list variable, compiled once for both engines: every element must pass a predicate
// given its index, and each one that does not is a violation at one path. From one declaration come the TypeScript
// rule's violations (keyed as ratcheting compares them) and the native validations: one that refuses a new violation
// and one that warns of a stored one (`wasStored`, the CEL's reading of the key), named by the first failing element.
import type { NativeForm, NativeValidating, NativeValidation } from '../cel/types.js';
import type { RuleId, Violation } from '../types.js';
import type { Rule } from '../../rules/context.js';
import { bound, not, or, type Bool, type Env, type Expr, type Int, type Str, type Variable } from './expr.js';
import { all, firstWhere } from './lists.js';
import type { RequestEnv } from './request.js';

export interface ListCheck<T> {
  rule: RuleId;
  list: Variable<readonly T[]>;
  /** Every variable the CEL reads, the list's included, in order of declaration. */
  variables: readonly Variable<unknown>[];
  /** The comprehension's variables' names in CEL: index and element. */
  names: readonly [string, string];
  passes: (i: Int, x: Expr<T>) => Bool;
  /** This element's violation was the stored object's too: what the engine's comparison of `key`s finds. */
  wasStored: (i: Int, x: Expr<T>) => Bool;
  message: (x: Expr<T>) => Str;
  path: string;
  /** How to fix, and the ratcheting key, of the violation at index i (the webhook's and the CLI's only). */
  fix: (list: readonly T[], i: number) => string;
  key: (list: readonly T[], i: number) => string;
  reason: 'Invalid' | 'Forbidden';
}

export function listCheck<T>(check: ListCheck<T>): { validate: Rule; native: NativeForm } {
  const [index, name] = check.names;
  const i = bound<number>(index);
  const x = bound<T>(name);
  const passes = check.passes(i, x);
  const message = check.message(x);

  const validate: Rule = ({ input }) => {
    const env: Env & RequestEnv = { memo: undefined, input };
    const items = check.list.value.js(env);
    const violations: Violation[] = [];
    for (let k = 0; k < items.length; k++) {
      i.set(k);
      x.set(items[k] as T);
      if (passes.js(env)) continue;
      // The list read once: a message's reads of the variable find it (made only here: most lists pass).
      env.memo ??= new Map([[check.list.declaration.name, items]]);
      violations.push({
        rule: check.rule,
        path: check.path,
        message: message.js(env),
        fix: check.fix(items, k),
        key: check.key(items, k),
      });
    }
    return { violations };
  };

  const validating = (): NativeValidating => {
    const outcomes = [
      ['enforced', (j: Int, y: Expr<T>) => or(check.passes(j, y), check.wasStored(j, y))],
      ['existing', (j: Int, y: Expr<T>) => or(check.passes(j, y), not(check.wasStored(j, y)))],
    ] as const;
    const validations = outcomes.map(([outcome, ok]): NativeValidation => ({
      outcome,
      expression: all(check.list, index, name, ok).cel,
      messageExpression: check.message(firstWhere(check.list, index, name, (j, y) => not(ok(j, y)))).cel,
      reason: check.reason,
    }));
    return { variables: check.variables.map((v) => v.declaration), validations };
  };

  return { validate, native: { validating, readsNameIndex: false } };
}
