// deletion-freeze's words, machine-api-operator's: for the TypeScript rule and its CEL.
import type { Stage } from '../../core/types.js';
import { forbiddenField } from '../../core/messages/field.js';
import { message } from '../../core/messages/message.js';

/** How machine-api-operator names a stage in the message. */
export const STAGE_WORDS: Readonly<Record<Stage, string>> = Object.freeze({
  preDrain: 'pre-drain',
  preTerminate: 'pre-terminate',
  // No Machine has it (the freeze judges deletion stages only); named as Cluster API names its annotation.
  beforeUpgrade: 'before-upgrade',
});

/** One hook as Go's %+v prints a LifecycleHook. */
export const goHookMessage = message<{ name: string; owner: string }>((w) => [
  '{Name:',
  w.text('name'),
  ' Owner:',
  w.text('owner'),
  '}',
]);

/** A deleting Machine's stage gaining or changing hooks; `hooks` is goHookMessage of each, joined with spaces. */
export const deletionFreezeMessage = message<{ path: string; stageWords: string; hooks: string }>((w) =>
  forbiddenField(w.text('path'), [
    w.text('stageWords'),
    ' hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [',
    w.text('hooks'),
    ']',
  ]),
);
