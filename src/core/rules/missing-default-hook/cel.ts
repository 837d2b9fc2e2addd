// missing-default-hook in CEL: a policy of its own, evaluated only for an UPDATE of a non-deleting object that
// matches a default-hook rule and lacks its hook (the gate, variable-free), so other updates cost one condition.
import { defaultHookRulesOf } from '../../default-hook-selection.js';
import { hookAnnotationKey } from '../../capi.js';
import type { HookCarrier } from '../../carriers.js';
import type { DefaultHookRule } from '../../policy.js';
import { missingDefaultHookMessage } from '../default-hooks/rule.js';
import { cel, celJoin, celList, celString, hasPath, OBJECT, OLD_OBJECT, select, type Cel } from '../../cel/text.js';
import { labelSelectorCel } from '../../cel/selector.js';
import type { NativeContext, NativeValidating } from '../../cel/types.js';

/** True when `base` (object, oldObject) carries the rule's hook with its owner (read in place: no variable in a gate). */
export function carriesHook(rule: DefaultHookRule, carrier: HookCarrier, base: Cel): Cel {
  const { name, owner } = rule.hook;
  if (carrier.format === 'annotations') {
    const at = select(base, carrier.root);
    const key = celString(hookAnnotationKey(rule.stage, name));
    return cel`(${hasPath(base, carrier.root)} && ${key} in ${at} && ${at}[${key}] == ${celString(owner)})`;
  }
  const keys = [...carrier.root, rule.stage];
  return cel`(${hasPath(base, keys)} && ${select(base, keys)}.exists(h, type(h) == map && has(h.name) && has(h.owner) && h.name == ${celString(name)} && h.owner == ${celString(owner)}))`;
}

/** The object matches the rule (its kind is the carrier's) and lacks its hook, as the stored object did. */
function lacks(rule: DefaultHookRule, carrier: HookCarrier): Cel {
  const namespaces = rule.match.namespaces ?? [];
  return celJoin(
    [
      ...(namespaces.length > 0 ? [cel`request.namespace in ${celList(namespaces.map(celString))}`] : []),
      cel`(${labelSelectorCel(rule.match.labelSelector, OBJECT)})`,
      cel`!${carriesHook(rule, carrier, OBJECT)}`,
      cel`oldObject != null && !${carriesHook(rule, carrier, OLD_OBJECT)}`,
    ],
    ' && ',
  );
}

export function nativeMissingDefaultHook({ policy, view }: NativeContext): NativeValidating {
  const carrier = view.carrier;
  const rules = defaultHookRulesOf(policy, carrier);
  if (rules.length === 0) return { variables: [], validations: [] };
  const when = {
    name: 'lacks-default-hook',
    expression: cel`!has(object.metadata.deletionTimestamp) && (${celJoin(
      rules.map((r) => cel`(${lacks(r, carrier)})`),
      ' || ',
    )})`,
  };
  return {
    variables: [],
    validations: rules.map((r) => ({
      outcome: 'enforced' as const,
      expression: cel`!(${lacks(r, carrier)})`,
      messageExpression: celString(missingDefaultHookMessage(carrier, r)),
      reason: 'Invalid' as const,
      gate: { suffix: 'default-hooks', when, updateOnly: true },
    })),
  };
}
