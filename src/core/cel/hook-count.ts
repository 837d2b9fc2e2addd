// hook-count in CEL: a stage's size against the policy's bound, O(1) on the variables each carrier already declares
// (src/core/cel/carrier.ts); oldHooks is empty on CREATE, so only an UPDATE that does not grow the stage ratchets.
import { hookCountMessage } from '../messages/hook-count.js';
import { cel, celString } from './text.js';
import type { NativeContext, NativeValidating, NativeValidation } from './types.js';

export function nativeHookCount({ policy, view: carrier }: NativeContext): NativeValidating {
  const max = policy.maxHooksPerStage;
  const words = hookCountMessage(max);
  const validations: NativeValidation[] = [];
  for (const s of carrier.stages) {
    const within = cel`size(${s.hooks}) <= ${max}`;
    const keeps = cel`size(${s.oldHooks}) >= size(${s.hooks})`;
    const message = words.toCel({ path: celString(s.stagePath), count: cel`size(${s.hooks})` });
    validations.push(
      { outcome: 'enforced', expression: cel`${within} || ${keeps}`, messageExpression: message, reason: 'Invalid' },
      { outcome: 'existing', expression: cel`${within} || !(${keeps})`, messageExpression: message, reason: 'Invalid' },
    );
  }
  return { variables: [], validations };
}
