// Which requests a default-hook rule acts on, and whether an object carries its hook, as expressions: what
// default-hook-kept and missing-default-hook judge, in both engines from one definition.
import type { Hook, HookCarrier } from '../../core/carriers.js';
import { and, cond, FALSE, leaf, not, type Bool } from '../../core/expr/expr.js';
import type { HookEnv } from '../../core/expr/hooks.js';
import { objectHas, operationIs } from '../../core/expr/request.js';
import { labelsMatch, namespaceIn } from '../../core/expr/selector.js';
import { OBJECT, OLD_OBJECT } from '../../core/cel/text.js';
import type { DefaultHookRule } from '../../core/policy.js';
import { carriesHook } from '../missing-default-hook/carries.js';

/**
 * The rule selects this request: a CREATE it matches, or the UPDATE that makes a non-deleting object match (the
 * stored object did not), as src/core/default-hook-selection.ts's defaultHookSelects decides for the mutation; the
 * kind is the carrier's, chosen before (defaultHookRulesOf).
 */
export function selectsRequest(rule: DefaultHookRule): Bool {
  const selector = rule.match.labelSelector;
  const create = rule.operations.includes('CREATE') ? labelsMatch(selector, 'object') : FALSE;
  // The stored object's labels are read only here, on UPDATE: on CREATE there is none.
  const update = rule.operations.includes('UPDATE')
    ? and(
        not(objectHas(['metadata', 'deletionTimestamp'])),
        labelsMatch(selector, 'object'),
        not(labelsMatch(selector, 'oldObject')),
      )
    : FALSE;
  return and(namespaceIn(rule.match.namespaces), cond(operationIs('CREATE'), create, update));
}

/**
 * The object (or the stored one) carries the rule's hook with its owner. Both read the stage as written: CEL each
 * raw entry with a string name and owner, the webhook the well-formed hooks, which are those entries.
 */
export function carriesRuleHook(rule: DefaultHookRule, carrier: HookCarrier, stored: boolean): Bool {
  return leaf(carriesHook(rule, carrier, stored ? OLD_OBJECT : OBJECT), (env) =>
    carriesDefaultHook((env as HookEnv).stage(rule.stage, stored), carrier, rule),
  );
}

/** Whether `hooks` carry a default-hook rule's hook: its identity (a Cluster API key, a list name) with its owner. */
export function carriesDefaultHook(hooks: readonly Hook[], carrier: HookCarrier, rule: DefaultHookRule): boolean {
  const id = carrier.hookId(rule.stage, rule.hook.name);
  return hooks.some((h) => h.stage === rule.stage && h.id === id && h.owner === rule.hook.owner);
}
