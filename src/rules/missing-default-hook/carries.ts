// Whether an object (object or oldObject) carries a default-hook rule's hook with its owner, in CEL: read in place,
// as a gate's matchCondition has no variables. The webhook's side is default-hooks/selection.ts carriesDefaultHook;
// the two meet there, in carriesRuleHook.
import { hookAnnotationKey } from '../../core/capi.js';
import type { HookCarrier } from '../../core/carriers.js';
import { cel, celString, hasPath, select, type Cel } from '../../core/cel/text.js';
import type { DefaultHookRule } from '../../core/policy.js';

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
