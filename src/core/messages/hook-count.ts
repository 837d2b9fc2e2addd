// hook-count's words, for the TypeScript rule and its CEL: the API server's "Too many", naming the policy field.
import { tooManyField } from './field.js';
import { message, words, type Message } from './message.js';

/** A stage's count over the policy's bound. */
export function hookCountMessage(max: number): Message<{ path: string; count: number }> {
  return message<{ path: string; count: number }>((w) => [
    words(tooManyField(w.text('path'), w.int('count'), max), ' (policy maxHooksPerStage)'),
  ]);
}
