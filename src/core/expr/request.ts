// The request as expressions: what a predicate may read besides hooks, each leaf written for both compilers here.
import { cel, celIdentifier, celString, hasPath, OBJECT, select } from '../cel/text.js';
import { dig, isDeleting, metadata, ownValue } from '../guards.js';
import type { ReviewInput } from '../types.js';
import { leaf, type Bool } from './expr.js';
import type { List } from './lists.js';

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

/** The stored object is there: an UPDATE's (the API server's oldObject is null on CREATE). */
export const STORED: Bool = leaf(cel`oldObject != null`, (env) => inputOf(env).oldObject != null);

/** The object judged, or the stored one. */
export type Root = 'object' | 'oldObject';

/**
 * metadata.<key> is set: has() of an object's metadata, which the API server always sends (a missing one reads as
 * empty in JavaScript); a null field is absent in both.
 */
export function metadataHas(root: Root, key: string): Bool {
  return leaf(
    cel`has(${celIdentifier(root)}.metadata.${celIdentifier(key)})`,
    (env) => ownValue(metadata(inputOf(env)[root]), key) != null,
  );
}

/**
 * metadata.<key>, a list: read after metadataHas. The API server decodes ObjectMeta's lists (ownerReferences,
 * finalizers) before admission, so CEL only meets a list; JavaScript reads anything else as empty, never failing.
 */
export function metadataList(root: Root, key: string): List<unknown> {
  return leaf(cel`${celIdentifier(root)}.metadata.${celIdentifier(key)}`, (env) => {
    const value = ownValue(metadata(inputOf(env)[root]), key);
    return Array.isArray(value) ? (value as unknown[]) : [];
  });
}

/** The object's value at `keys`, a list: read after objectHas. JavaScript reads anything else as empty. */
export function objectList(keys: readonly string[]): List<unknown> {
  return leaf(select(OBJECT, keys), (env) => {
    const value = dig(inputOf(env).object, keys);
    return Array.isArray(value) ? (value as unknown[]) : [];
  });
}
