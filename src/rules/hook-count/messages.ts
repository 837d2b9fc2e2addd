// hook-count's words, for the TypeScript rule and its CEL: the API server's "Too many", saying which hooks count.
import { POLICY_OWNER_HOOKS_PER_STAGE } from '../../core/policy.js';
import { tooManyField } from '../../core/messages/field.js';
import { message, words, type Message } from '../../core/messages/message.js';

/** What one stage's count is of: the hooks of owners the policy does not name, or of those it names. */
export type HookClass = 'others' | 'named';

const COUNTED: Readonly<Record<HookClass, string>> = {
  others: ' (policy maxHooksPerStage; hooks of owners the policy names are not counted)',
  named: ' (hooks of owners the policy names: owners, reservedHooks, defaultHooks)',
};

/** A stage's count of one class over its bound: maxHooksPerStage for others, the fixed ceiling for named owners. */
export function hookCountMessage(kind: HookClass, maxOthers: number): Message<{ path: string; count: number }> {
  const max = kind === 'others' ? maxOthers : POLICY_OWNER_HOOKS_PER_STAGE;
  return message<{ path: string; count: number }>((w) => [
    words(tooManyField(w.text('path'), w.int('count'), max), COUNTED[kind]),
  ]);
}
