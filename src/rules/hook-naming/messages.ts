// hook-naming's words and limits, for its constraints (src/rules/hook-naming/rule.ts, written once for both
// engines, and the policy loader's checks of the same strings).
import { HOOK_ANNOTATION_PREFIX } from '../../core/capi.js';
import type { Stage } from '../../core/types.js';
import { invalidField, tooLongField } from '../../core/messages/field.js';
import { message, words, type Message } from '../../core/messages/message.js';

/** The openshift/api CRD's bounds on a hook's name and owner (characters). */
export const HOOK_NAME_LENGTH = Object.freeze({ min: 3, max: 256 });
export const HOOK_OWNER_LENGTH = Object.freeze({ min: 3, max: 512 });

/** A string field and its value, as OpenAPI validation names a problem of it. */
export type FieldValue = { path: string; value: string };

/** minLength, in the API server's words. */
export function tooShortMessage(min: number): Message<FieldValue> {
  return message<FieldValue>((w) => [
    invalidField(
      w.text('path'),
      w.quoted('value'),
      words(w.text('path'), ` in body should be at least ${min} chars long`),
    ),
  ]);
}

/** maxLength, in the API server's words (the value is not printed). */
export function tooLongMessage(max: number): Message<{ path: string }> {
  return message<{ path: string }>((w) => [tooLongField(w.text('path'), max)]);
}

/** pattern, in the API server's words. */
export function patternMessage(pattern: string): Message<FieldValue> {
  return message<FieldValue>((w) => [
    invalidField(w.text('path'), w.quoted('value'), words(w.text('path'), ` in body should match '${pattern}'`)),
  ]);
}

/** A Cluster API hook annotation key's problem: `detail` is one of qualified-name.ts's, or annotationShapeDetail. */
export const annotationKeyMessage = message<{ path: string; key: string; detail: string }>((w) => [
  invalidField(w.text('path'), w.quoted('key'), w.text('detail')),
]);

/** A key that starts with a stage's hook prefix but is not "<prefix>/<name>". */
export function annotationShapeDetail(stage: Stage): string {
  const prefix = HOOK_ANNOTATION_PREFIX[stage];
  return `an annotation key starting with ${JSON.stringify(prefix)} declares a ${stage} hook and must be ${JSON.stringify(`${prefix}/<name>`)}`;
}
