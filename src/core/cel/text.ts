// CEL text building blocks: literals from policy data (compiled into expressions rather than read from a params
// object: the policy is static per render, and literals need no ConfigMap, paramRef or RBAC to read it).
import { escapePointerToken } from '../pointer.js';

/** A CEL string literal (JSON's escapes are CEL's: \", \\, \n, \uXXXX). */
export function str(text: string): string {
  return JSON.stringify(text);
}

/** A CEL map literal {'a': true, ...}: a set with O(1) `in`. */
export function stringSet(values: Iterable<string>): string {
  const unique = [...new Set(values)];
  return `{${unique.map((v) => `${str(v)}: true`).join(', ')}}`;
}

/** A CEL map literal of string to string, first value kept for a repeated key. */
export function stringMap(entries: Iterable<readonly [string, string]>): string {
  const seen = new Map<string, string>();
  for (const [k, v] of entries) if (!seen.has(k)) seen.set(k, v);
  return `{${[...seen].map(([k, v]) => `${str(k)}: ${str(v)}`).join(', ')}}`;
}

/** The text with its first letter upper-cased, for CEL variable names built from parts (preDrain -> oldPreDrain). */
export function capitalize(text: string): string {
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
}

/** A JSON pointer (for a JSONPatch path) from object keys. */
export function pointer(keys: readonly string[]): string {
  return keys.map((k) => `/${escapePointerToken(k)}`).join('');
}

/** `has()` for each step of a key path below `base` (object, oldObject), joined with && and parenthesized. */
export function hasPath(base: string, keys: readonly string[]): string {
  const steps: string[] = [];
  let at = base;
  for (const key of keys) {
    at = `${at}.${key}`;
    steps.push(`has(${at})`);
  }
  return `(${steps.join(' && ')})`;
}

/** A CEL field selection of a key path (keys are identifiers in every carrier's root). */
export function select(base: string, keys: readonly string[]): string {
  return [base, ...keys].join('.');
}
