// Whether a default-hook rule acts on a request: the mutation (src/rules/default-hooks/rule.ts) and the squatting check
// (a hook the policy adds itself is no squat: src/core/ownership.ts judgedAdditions) ask the same question.
import type { HookCarrier } from './carriers.js';
import { metadata } from './guards.js';
import type { Policy } from './policy.js';
import { matchesObject } from './selector.js';
import type { KubeObject, ReviewInput } from './types.js';

/**
 * Whether a default-hook rule selects `obj` (input.object or its copy) on this request: on CREATE when it matches;
 * on UPDATE only when the update makes it match (the stored object did not), so a hook its owner removed from a
 * Machine that matched all along is not put back, and never on a deleting object, where the deletion freeze
 * forbids new hooks (src/rules/default-hooks/cel.ts says the same in CEL, for the webhook's matchCondition too).
 */
export function defaultHookSelects(
  rule: Policy['defaultHooks'][number],
  input: ReviewInput,
  carrier: HookCarrier,
  obj: KubeObject,
): boolean {
  const op = input.operation;
  if (!carrier.gatesDeletion || (op !== 'CREATE' && op !== 'UPDATE') || !rule.operations.includes(op)) return false;
  if (!matchesObject(rule.match, input.kind, input.namespace, obj)) return false;
  if (op === 'CREATE') return true;
  if (metadata(obj)['deletionTimestamp'] !== undefined) return false;
  const old = input.oldObject;
  return old === null || !matchesObject(rule.match, input.kind, input.namespace, old);
}

/** The default-hook rules that may add a hook on an UPDATE of `carrier` (their selection is then decided per request). */
export function defaultHookSelectsUpdates(policy: Policy, carrier: HookCarrier): Policy['defaultHooks'] {
  if (!carrier.gatesDeletion || policy.enforcement['default-hooks'] === 'off') return [];
  return policy.defaultHooks.filter(
    (r) =>
      r.operations.includes('UPDATE') &&
      r.match.kinds.some((k) => k.group === carrier.group && k.kind === carrier.kind),
  );
}

/** The default-hook rules that can add a hook to `carrier`'s kind (none when default-hooks is off, or it is no Machine). */
export function defaultHookRulesOf(policy: Policy, carrier: HookCarrier): Policy['defaultHooks'] {
  if (policy.enforcement['default-hooks'] === 'off' || !carrier.gatesDeletion) return [];
  return policy.defaultHooks.filter((r) =>
    r.match.kinds.some((k) => k.group === carrier.group && k.kind === carrier.kind),
  );
}
