// hook-count in CEL: a stage's size against the policy's bound, O(1) on the variables each carrier already declares
// (src/core/cel/carrier.ts); oldHooks is empty on CREATE, so only an UPDATE that does not grow the stage ratchets.
import { tooMany } from '../field-errors.js';
import { str } from './text.js';
import type { NativeContext, NativeValidating, NativeValidation } from './types.js';

/** The words after the API server's "Too many" message, naming the policy field (one source for both engines). */
export const HOOK_COUNT_SUFFIX = ' (policy maxHooksPerStage)';

export function nativeHookCount({ policy, cel }: NativeContext): NativeValidating {
  const max = policy.maxHooksPerStage;
  const validations: NativeValidation[] = [];
  for (const s of cel.stages) {
    const within = `size(${s.hooks}) <= ${max}`;
    const keeps = `size(${s.oldHooks}) >= size(${s.hooks})`;
    // The webhook's message, split where the count goes: "<path>: Too many: " <n> ": must have at most <max> items".
    const [head = '', tail = ''] = tooMany(s.stagePath, 1_000_000_007, max).message.split('1000000007');
    const message = `${str(head)} + string(size(${s.hooks})) + ${str(`${tail}${HOOK_COUNT_SUFFIX}`)}`;
    validations.push(
      { outcome: 'enforced', expression: `${within} || ${keeps}`, messageExpression: message, reason: 'Invalid' },
      { outcome: 'existing', expression: `${within} || !(${keeps})`, messageExpression: message, reason: 'Invalid' },
    );
  }
  return { variables: [], validations };
}
