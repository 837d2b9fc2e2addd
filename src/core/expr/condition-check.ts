// Checks the policy fixes one by one (a default-hook rule each), compiled for both engines: each item's violation
// stands when its condition holds. Native mode gives them a policy of their own, evaluated only when one of the
// conditions holds (the gate, a matchCondition), so other requests cost one condition.
import type { HookCarrier } from '../carriers.js';
import { cel, celJoin, celString } from '../cel/text.js';
import type { NativeContext, NativeForm, NativeValidating } from '../cel/types.js';
import type { Policy } from '../policy.js';
import type { Violation } from '../types.js';
import type { Rule } from '../../rules/context.js';
import { compiledPer } from './compiled.js';
import type { Bool } from './expr.js';
import { HookEnv } from './hooks.js';

export interface ConditionItem {
  holds: Bool;
  /** What the rule reports when it holds; its message is native mode's too. */
  violation: Violation;
}

export interface ConditionCheck {
  items: (policy: Policy, carrier: HookCarrier) => readonly ConditionItem[];
  gate: { suffix: string; when: string; updateOnly?: true };
}

export function conditionCheck(check: ConditionCheck): { validate: Rule; native: NativeForm } {
  const itemsOf = compiledPer(check.items);

  const validate: Rule = ({ policy, input, carrier, hooks, oldHooks }) => {
    const items = itemsOf(policy, carrier);
    if (items.length === 0 || input.object === null) return { violations: [] };
    const env = new HookEnv(hooks, oldHooks, input, policy);
    // Copies: the items are compiled once and shared by every review.
    return { violations: items.filter((i) => i.holds.js(env)).map((i) => ({ ...i.violation })) };
  };

  const validating = ({ policy, view }: NativeContext): NativeValidating => {
    const items = itemsOf(policy, view.carrier);
    if (items.length === 0) return { variables: [], validations: [] };
    const when = {
      name: check.gate.when,
      expression: celJoin(
        items.map((i) => cel`(${i.holds.cel})`),
        ' || ',
      ),
    };
    const gate = { suffix: check.gate.suffix, when, ...(check.gate.updateOnly ? { updateOnly: true } : {}) };
    return {
      variables: [],
      validations: items.map((i) => ({
        outcome: 'enforced' as const,
        expression: cel`!${i.holds.cel}`,
        messageExpression: celString(i.violation.message),
        reason: 'Invalid' as const,
        gate,
      })),
    };
  };

  return { validate, native: { validating, readsNameIndex: false } };
}
