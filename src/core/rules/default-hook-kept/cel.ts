// default-hook-kept in CEL: a policy of its own, evaluated only for a CREATE or UPDATE that a default-hook rule
// selects (as src/core/rules/default-hooks/rule.ts's selects) and that lacks the rule's hook after every mutation (the
// gate, variable-free), so other requests cost one condition.
import { defaultHookRulesOf } from '../../default-hook-selection.js';
import type { HookCarrier } from '../../carriers.js';
import type { DefaultHookRule } from '../../policy.js';
import { strippedDefaultHookMessage } from '../default-hooks/rule.js';
import { newlySelectedCel } from '../default-hooks/cel.js';
import { carriesHook } from '../missing-default-hook/cel.js';
import { labelSelectorCel } from '../../cel/selector.js';
import { cel, celJoin, celList, celString, OBJECT, type Cel } from '../../cel/text.js';
import type { NativeContext, NativeValidating } from '../../cel/types.js';

/** The rule selects this request: a CREATE it matches, or the UPDATE that makes a non-deleting object match. */
function selected(rule: DefaultHookRule): Cel {
  const namespaces = rule.match.namespaces ?? [];
  // A conditional: oldObject is null on CREATE, and newlySelectedCel reads its labels.
  const create = rule.operations.includes('CREATE')
    ? cel`(${labelSelectorCel(rule.match.labelSelector, OBJECT)})`
    : cel`false`;
  const update = rule.operations.includes('UPDATE') ? cel`(${newlySelectedCel(rule, false)})` : cel`false`;
  return celJoin(
    [
      ...(namespaces.length > 0 ? [cel`request.namespace in ${celList(namespaces.map(celString))}`] : []),
      cel`(request.operation == 'CREATE' ? ${create} : ${update})`,
    ],
    ' && ',
  );
}

function stripped(rule: DefaultHookRule, carrier: HookCarrier): Cel {
  return cel`${selected(rule)} && !${carriesHook(rule, carrier, OBJECT)}`;
}

export function nativeDefaultHookKept({ policy, view }: NativeContext): NativeValidating {
  const carrier = view.carrier;
  const rules = defaultHookRulesOf(policy, carrier);
  if (rules.length === 0) return { variables: [], validations: [] };
  const when = {
    name: 'selected-without-default-hook',
    expression: celJoin(
      rules.map((r) => cel`(${stripped(r, carrier)})`),
      ' || ',
    ),
  };
  return {
    variables: [],
    validations: rules.map((r) => ({
      outcome: 'enforced' as const,
      expression: cel`!(${stripped(r, carrier)})`,
      messageExpression: celString(strippedDefaultHookMessage(carrier, r)),
      reason: 'Invalid' as const,
      gate: { suffix: 'default-hook-kept', when },
    })),
  };
}
