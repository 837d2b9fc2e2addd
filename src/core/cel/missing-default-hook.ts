// missing-default-hook in CEL: a policy of its own, evaluated only for an UPDATE of a non-deleting object that
// matches a default-hook rule and lacks its hook (the gate, variable-free), so other updates cost one condition.
import { hookAnnotationKey } from '../capi.js';
import type { HookCarrier } from '../carriers.js';
import type { DefaultHookRule } from '../policy.js';
import { missingDefaultHookMessage } from '../rules/default-hooks.js';
import { hasPath, select, str } from './text.js';
import { labelSelectorCel } from './selector.js';
import type { NativeContext, NativeValidating } from './types.js';

/** True when `base` (object, oldObject) carries the rule's hook with its owner (read in place: no variable in a gate). */
function carriesHook(rule: DefaultHookRule, carrier: HookCarrier, base: string): string {
  const { name, owner } = rule.hook;
  if (carrier.format === 'annotations') {
    const at = select(base, carrier.root);
    const key = str(hookAnnotationKey(rule.stage, name));
    return `(${hasPath(base, carrier.root)} && ${key} in ${at} && ${at}[${key}] == ${str(owner)})`;
  }
  const keys = [...carrier.root, rule.stage];
  return `(${hasPath(base, keys)} && ${select(base, keys)}.exists(h, type(h) == map && has(h.name) && has(h.owner) && h.name == ${str(name)} && h.owner == ${str(owner)}))`;
}

/** The object matches the rule (its kind is the carrier's) and lacks its hook, as the stored object did. */
function lacks(rule: DefaultHookRule, carrier: HookCarrier): string {
  const namespaces = rule.match.namespaces ?? [];
  return [
    ...(namespaces.length > 0 ? [`request.namespace in [${namespaces.map(str).join(', ')}]`] : []),
    `(${labelSelectorCel(rule.match.labelSelector, 'object')})`,
    `!${carriesHook(rule, carrier, 'object')}`,
    `oldObject != null && !${carriesHook(rule, carrier, 'oldObject')}`,
  ].join(' && ');
}

export function nativeMissingDefaultHook({ policy, cel }: NativeContext): NativeValidating {
  const carrier = cel.carrier;
  const rules =
    policy.enforcement['default-hooks'] === 'off' || !carrier.live
      ? []
      : policy.defaultHooks.filter((r) =>
          r.match.kinds.some((k) => k.group === carrier.group && k.kind === carrier.kind),
        );
  if (rules.length === 0) return { variables: [], validations: [] };
  const when = {
    name: 'lacks-default-hook',
    expression: `!has(object.metadata.deletionTimestamp) && (${rules.map((r) => `(${lacks(r, carrier)})`).join(' || ')})`,
  };
  return {
    variables: [],
    validations: rules.map((r) => ({
      outcome: 'enforced' as const,
      expression: `!(${lacks(r, carrier)})`,
      messageExpression: str(missingDefaultHookMessage(carrier, r)),
      reason: 'Invalid' as const,
      gate: { suffix: 'default-hooks', when, updateOnly: true },
    })),
  };
}
