// Readers for untrusted JSON: rules never assume a field has the type the schema promises.
import type { KubeObject } from './types.js';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** value[key] when `key` is value's own property: what Object.prototype holds never stands in for a missing key. */
export function ownValue<T>(value: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return value !== undefined && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** Follows a key path through nested records; undefined as soon as a step is missing or not a record. */
export function dig(value: unknown, keys: readonly string[]): unknown {
  let current: unknown = value;
  for (const key of keys) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

export function metadata(obj: KubeObject | null): Record<string, unknown> {
  const meta = obj?.['metadata'];
  return isRecord(meta) ? meta : {};
}

/**
 * The string entries of a label or annotation map, in a map without a prototype: a key named "constructor" or
 * "toString" finds only what the object holds, and a "__proto__" key (an own key when JSON.parse makes it) stays one.
 */
export function stringEntriesOf(value: unknown): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  if (!isRecord(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

export function isDeleting(obj: KubeObject | null): boolean {
  const ts = metadata(obj)['deletionTimestamp'];
  return typeof ts === 'string' && ts !== '';
}

/**
 * Nesting printed in full by quote(); deeper values are named, not printed. JSON.stringify recurses and gives up at
 * a few thousand levels, and the API server accepts 10,000 (where no schema types the field).
 */
export const MAX_QUOTED_DEPTH = 100;

/** Go's %q-like quoting, as field.Invalid prints string values. */
export function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'null';
  if (typeof value === 'object' && value !== null && nestedDeeperThan(value, MAX_QUOTED_DEPTH)) {
    return `(${jsonType(value)} nested more than ${MAX_QUOTED_DEPTH} levels)`;
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- reached only by what JSON cannot write (a function, a symbol)
  return JSON.stringify(value) ?? String(value);
}

/** Whether a JSON value nests deeper than `limit` levels; a loop, visiting each container once. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, depth] = next;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

/** The JSON type name the API server's OpenAPI validation reports ("must be of type string: \"integer\""). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
