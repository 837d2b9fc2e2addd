// The request as expressions: what a predicate may read besides hooks, each leaf written for both compilers here.
import { cel, celString, hasPath, OBJECT } from '../cel/text.js';
import { dig, isDeleting } from '../guards.js';
import type { ReviewInput } from '../types.js';
import { leaf, type Bool } from './expr.js';

/** What every webhook-side environment carries: the request being judged. */
export interface RequestEnv {
  readonly input: ReviewInput;
}

const inputOf = (env: unknown): ReviewInput => (env as RequestEnv).input;

/** The object has a value at `keys` (a field present, whatever its value, as has() reads a CRD object). */
export function objectHas(keys: readonly string[]): Bool {
  return leaf(hasPath(OBJECT, keys), (env) => dig(inputOf(env).object, keys) !== undefined);
}

/** The stored object has a value at `keys` (UPDATE only: there is none on CREATE). */
export function storedHas(keys: readonly string[]): Bool {
  return leaf(
    cel`(oldObject != null && ${hasPath(cel`oldObject`, keys)})`,
    (env) => dig(inputOf(env).oldObject, keys) !== undefined,
  );
}

export function namespaceIs(namespace: string): Bool {
  return leaf(cel`request.namespace == ${celString(namespace)}`, (env) => inputOf(env).namespace === namespace);
}

export function operationIs(operation: ReviewInput['operation']): Bool {
  return leaf(cel`request.operation == ${celString(operation)}`, (env) => inputOf(env).operation === operation);
}

/** The object is marked for deletion (a deletionTimestamp, which the API server sets and never clears). */
export const DELETION_MARKED: Bool = leaf(
  cel`has(object.metadata.deletionTimestamp) && object.metadata.deletionTimestamp != ''`,
  (env) => isDeleting(inputOf(env).object),
);

/** There is a stored object: an UPDATE's (admission always sends one; offline, `validate --old` does). */
export const STORED_EXISTS: Bool = leaf(cel`oldObject != null`, (env) => inputOf(env).oldObject !== null);
