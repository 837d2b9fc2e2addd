// Field errors in the API server's shape ("<path>: <type>[: <value>][: <detail>]", src/core/field-errors.ts) as
// messages both engines say: the type's words come from ERROR_TYPES, the path, value and detail are parts.
import { ERROR_TYPES } from '../field-errors.js';
import { words, type Message, type Part, type Slots } from './message.js';

/** field.Invalid: the value is printed (a quoted slot, or a part that prints it). */
export function invalidField<V extends Slots>(path: Part<V>, value: Part<V>, detail: Part<V>): Message<V> {
  return words(path, `: ${ERROR_TYPES.invalid}: `, value, ': ', detail);
}

/** field.Invalid with omitValue: the type and the detail, no value. */
export function invalidFieldOmitValue<V extends Slots>(path: Part<V>, detail: Part<V>): Message<V> {
  return words(path, `: ${ERROR_TYPES.invalid}: `, detail);
}

/** field.Forbidden: never prints the value. */
export function forbiddenField<V extends Slots>(path: Part<V>, detail: Part<V>): Message<V> {
  return words(path, `: ${ERROR_TYPES.forbidden}: `, detail);
}

/** field.TooLong: never prints the value. */
export function tooLongField<V extends Slots>(path: Part<V>, maxLength: number): Message<V> {
  return words(path, `: ${ERROR_TYPES.tooLong}: may not be more than ${maxLength} bytes`);
}

/** field.TooMany, as hookkeeper words it ("items" throughout): the count printed bare. */
export function tooManyField<V extends Slots>(path: Part<V>, count: Part<V>, max: number): Message<V> {
  return words(path, `: ${ERROR_TYPES.tooMany}: `, count, `: must have at most ${max} items`);
}
