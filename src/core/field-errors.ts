// Field errors in the API server's words: every "<path>: Invalid value: ...: detail" hookkeeper prints is built
// here, so the webhook, `validate` and `audit` word one problem one way, and as kube-apiserver would.
//
// Facts from k8s.io/apimachinery/pkg/util/validation/field (Error, ErrorBody, the constructors, Path):
// - a message is "<field>: <body>", and the body is "<type>", then ": <value>" unless the type is Required,
//   Forbidden, Too long or Internal error (or the value is omitted), then ": <detail>" when there is a detail;
// - values print as Go prints them there: strings %q-quoted, numbers and booleans bare, nil as null;
// - paths print as spec.list[0].name: a child after a dot, an index or a map key in brackets, keys unquoted.
// Where hookkeeper's wording differs from today's apimachinery it keeps its own (asserted byte for byte by tests
// and users' CI), and the constructor says so: see tooMany, notSupported, notFound and formatValue.
import { jsonType, quote } from './guards.js';

/** ErrorType.String(): the words each kind of field error starts with. */
export const ERROR_TYPES = Object.freeze({
  notFound: 'Not found',
  required: 'Required value',
  duplicate: 'Duplicate value',
  invalid: 'Invalid value',
  notSupported: 'Unsupported value',
  forbidden: 'Forbidden',
  tooLong: 'Too long',
  tooMany: 'Too many',
  internal: 'Internal error',
} as const);

export type ErrorType = (typeof ERROR_TYPES)[keyof typeof ERROR_TYPES];

/** apimachinery's omitValue: the body names the type but prints no value ("Invalid value: <detail>"). */
export const OMIT_VALUE: unique symbol = Symbol('omitValue');

/** Types whose body never prints the bad value (ErrorBody's first cases). */
const VALUELESS: ReadonlySet<ErrorType> = new Set<ErrorType>([
  ERROR_TYPES.required,
  ERROR_TYPES.forbidden,
  ERROR_TYPES.tooLong,
  ERROR_TYPES.internal,
]);

/** A field path as apimachinery's field.Path builds it: NewPath("spec").Child("lifecycleHooks").Index(0). */
export class FieldPath {
  private constructor(private readonly text: string) {}

  /** NewPath(name, moreNames...). */
  static of(name: string, ...more: string[]): FieldPath {
    return new FieldPath(name).child(...more);
  }

  /** Child(name, moreNames...): ".name" for each name. */
  child(...names: string[]): FieldPath {
    return names.length === 0 ? this : new FieldPath(`${this.text}.${names.join('.')}`);
  }

  /** Index(i): "[i]". */
  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  /** Key(k): "[k]", the key unquoted, as metadata.annotations[example.com/x] prints. */
  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

/** field.NewPath. */
export function newPath(name: string, ...more: string[]): FieldPath {
  return FieldPath.of(name, ...more);
}

/** A path built with newPath, or one already printed in the same notation (carriers keep theirs as strings). */
export type PathLike = FieldPath | string;

export interface FieldError {
  readonly type: ErrorType;
  /** The printed field path. */
  readonly field: string;
  /** ErrorBody(): the message without the field path. */
  readonly body: string;
  /** Error(): "<field>: <body>". */
  readonly message: string;
}

/**
 * A bad value as the message prints it: strings quoted, numbers and booleans bare, null (and a missing value) as
 * null. Differs from apimachinery by design: strings are quoted as JSON, not Go's %q (the two differ only for
 * control and some non-printing characters), and lists and maps print as JSON, as the API server prints a
 * list-map key's duplicate ({"name":"x"}), not Go's %#v; very deep nesting is named, not printed (guards.quote).
 */
export function formatValue(value: unknown): string {
  return quote(value);
}

function fieldError(type: ErrorType, path: PathLike, value: unknown, detail: string): FieldError {
  const field = String(path);
  let body: string = type;
  if (!VALUELESS.has(type) && value !== OMIT_VALUE) body += `: ${formatValue(value)}`;
  if (detail !== '') body += `: ${detail}`;
  return { type, field, body, message: `${field}: ${body}` };
}

/** field.Required(path, detail): "<path>: Required value[: detail]". */
export function required(path: PathLike, detail = ''): FieldError {
  return fieldError(ERROR_TYPES.required, path, null, detail);
}

/** field.Invalid(path, value, detail): "<path>: Invalid value: <value>: detail"; OMIT_VALUE drops the value. */
export function invalid(path: PathLike, value: unknown, detail: string): FieldError {
  return fieldError(ERROR_TYPES.invalid, path, value, detail);
}

/**
 * field.TypeInvalid as apiextensions-apiserver reports kube-openapi's type errors: the value is the JSON type the
 * object holds, and the detail repeats it: `<path>: Invalid value: "integer": <path> in body must be of type
 * string: "integer"`.
 */
export function typeInvalid(path: PathLike, value: unknown, expected: string): FieldError {
  const got = jsonType(value);
  return fieldError(
    ERROR_TYPES.invalid,
    path,
    got,
    `${String(path)} in body must be of type ${expected}: ${formatValue(got)}`,
  );
}

/** field.Forbidden(path, detail): "<path>: Forbidden: detail". */
export function forbidden(path: PathLike, detail: string): FieldError {
  return fieldError(ERROR_TYPES.forbidden, path, '', detail);
}

/** field.Duplicate(path, value): "<path>: Duplicate value: <value>". */
export function duplicate(path: PathLike, value: unknown): FieldError {
  return fieldError(ERROR_TYPES.duplicate, path, value, '');
}

/**
 * field.NotFound(path, value): "<path>: Not found: <value>". hookkeeper also says why (an unresolved parent), so
 * it takes a detail too, which apimachinery's constructor does not; pass OMIT_VALUE to print the detail alone.
 */
export function notFound(path: PathLike, value: unknown, detail = ''): FieldError {
  return fieldError(ERROR_TYPES.notFound, path, value, detail);
}

/**
 * field.NotSupported(path, value, validValues): "<path>: Unsupported value: <value>: supported values: ...".
 * apimachinery quotes every valid value as a string; hookkeeper prints each as formatValue does (an enum of
 * numbers lists them bare), as `validate` always has.
 */
export function notSupported(path: PathLike, value: unknown, validValues: readonly unknown[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(formatValue).join(', ')}` : '';
  return fieldError(ERROR_TYPES.notSupported, path, value, detail);
}

/**
 * field.TooLong(path, value, maxLength): "<path>: Too long: may not be more than <n> bytes", the value never
 * printed (a negative maxLength: "value is too long").
 */
export function tooLong(path: PathLike, value: unknown, maxLength: number): FieldError {
  return fieldError(
    ERROR_TYPES.tooLong,
    path,
    value,
    maxLength >= 0 ? `may not be more than ${maxLength} bytes` : 'value is too long',
  );
}

/**
 * field.TooMany(path, actual, max): "<path>: Too many: <actual>: must have at most <max> items" (a negative
 * actual is omitted; a negative max: "has too many items"). Recent apimachinery says "1 item" for a maximum of
 * one; hookkeeper keeps "items" throughout, as `validate` has always printed it.
 */
export function tooMany(path: PathLike, actualQuantity: number, maxQuantity: number): FieldError {
  const detail = maxQuantity >= 0 ? `must have at most ${maxQuantity} items` : 'has too many items';
  return fieldError(ERROR_TYPES.tooMany, path, actualQuantity >= 0 ? actualQuantity : OMIT_VALUE, detail);
}

/** field.InternalError(path, err): "<path>: Internal error: <err>". */
export function internalError(path: PathLike, detail: string): FieldError {
  return fieldError(ERROR_TYPES.internal, path, null, detail);
}
