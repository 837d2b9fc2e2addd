// CEL evaluated in process, for proofs about the expressions hookkeeper registers (the webhooks' matchConditions).
// One small seam over the evaluator: @marcbachmann/cel-js parses every expression of src/core/cel/webhook-conditions.ts
// (has(), type() == map, .all() on maps, startsWith, conditionals, null); swapping evaluators changes this file only.
import { parse } from '@marcbachmann/cel-js';

export interface MatchVariables {
  request: unknown;
  object: unknown;
  oldObject: unknown;
}

/** A compiled boolean expression; throws (with the expression's name) on an evaluation error or a non-boolean. */
export function celCondition(name: string, expression: string): (vars: MatchVariables) => boolean {
  const run = parse(expression);
  return (vars) => {
    const out: unknown = run(vars);
    if (typeof out !== 'boolean') throw new Error(`${name} evaluated to ${String(out)}, not a bool`);
    return out;
  };
}
