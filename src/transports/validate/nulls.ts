// Nulls as the API server's decoder treats them in a custom resource, before defaulting and validation: a null
// in a field whose schema is not `nullable` is dropped (or, where a list item or map value cannot be dropped
// meaningfully and has a default, replaced by it), so such a field is absent, not of the wrong type.
// https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting-and-nullable
import { isRecord } from '../../core/guards.js';

type Schema = Record<string, unknown>;

function nonNullableNull(value: unknown, schema: Schema): boolean {
  return value === null && schema['nullable'] !== true;
}

/**
 * Prunes `value` in place against a structural schema (properties, additionalProperties, items). Object fields
 * that are non-nullable nulls are deleted (their `default`, if any, is then applied by ajv's useDefaults, as the
 * API server applies it to an absent field); list items and map values that are non-nullable nulls take their
 * schema's `default` when it has one, and otherwise stay null (and fail their type). `metadata` at the root is
 * the API server's own ObjectMeta, not the schema's.
 */
export function pruneNulls(value: unknown, schema: Schema, root = true): void {
  if (Array.isArray(value)) {
    const items = isRecord(schema['items']) ? schema['items'] : undefined;
    if (!items) return;
    value.forEach((item, i) => {
      if (nonNullableNull(item, items) && items['default'] !== undefined) value[i] = structuredClone(items['default']);
      else pruneNulls(item, items, false);
    });
    return;
  }
  if (!isRecord(value)) return;
  const props = isRecord(schema['properties']) ? schema['properties'] : {};
  const extra = isRecord(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  for (const [k, v] of Object.entries(value)) {
    if (root && k === 'metadata') continue;
    const prop = props[k];
    if (isRecord(prop)) {
      if (nonNullableNull(v, prop)) delete value[k];
      else pruneNulls(v, prop, false);
    } else if (extra) {
      if (nonNullableNull(v, extra) && extra['default'] !== undefined) value[k] = structuredClone(extra['default']);
      else if (nonNullableNull(v, extra)) delete value[k];
      else pruneNulls(v, extra, false);
    }
  }
}
