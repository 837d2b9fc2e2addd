// A CRD's structural schema (OpenAPI v3 with Kubernetes extensions) -> a JSON Schema ajv checks the way the
// API server does: unknown fields are errors (the server prunes them, and rejects them under strict field
// validation, kubectl's default), nullable admits null, int-or-string admits both, and list-type map/set items
// must be unique, `default` is carried for ajv's useDefaults and each `pattern` is checked to compile first.
// https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema
import { isRecord } from '../../core/guards.js';

type Schema = Record<string, unknown>;

/** Value validations copied as they are (the API server's OpenAPI v3 subset). */
const COPIED = [
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'multipleOf',
  'required',
  'default',
] as const;

/** Keyword ajv is taught (crd.ts) for x-kubernetes-list-type map and set. */
export const LIST_KEYWORD = 'k8sListUnique';
export type ListRule = { type: 'map'; keys: string[] } | { type: 'set' };

export interface ConvertOptions {
  /**
   * With the status subresource, create and update drop `status` after decoding: its values are not validated,
   * but strict decoding has refused its unknown fields by then.
   */
  statusSubresource: boolean;
  /** Formats that are checked (the caller implements them); any other `format` is ignored. */
  formats: readonly string[];
  /**
   * Why a `pattern` cannot be checked as the API server checks it (Go's RE2 syntax), or undefined when it can;
   * `checked: false` drops it from the schema, so ajv never has to compile it.
   */
  patternProblem: (pattern: string) => { checked: boolean; reason: string } | undefined;
}

export interface Converted {
  schema: Schema;
  /** x-kubernetes-validations (CEL) rules, which hookkeeper cannot evaluate. */
  celRules: number;
  /** Patterns checked differently from the API server, or not at all: "<field>: pattern "<p>" <why>". */
  patternNotes: string[];
}

interface State {
  celRules: number;
  patternNotes: string[];
  options: ConvertOptions;
}

export function convertCrdSchema(root: Schema, options: ConvertOptions): Converted {
  const state: State = { celRules: 0, patternNotes: [], options };
  const schema = convert(root, true, state, '');
  const props = { ...(schema['properties'] as Record<string, Schema> | undefined) };
  // ObjectMeta is validated by the API server itself; a CRD schema may not constrain more than name.
  props['metadata'] = OBJECT_META;
  props['apiVersion'] = { type: 'string' };
  props['kind'] = { type: 'string' };
  if (options.statusSubresource && isRecord(props['status'])) props['status'] = fieldsOnly(props['status']);
  return { schema: { ...schema, properties: props }, celRules: state.celRules, patternNotes: state.patternNotes };
}

const nullable = (type: string, more: Schema = {}): Schema => ({ type: [type, 'null'], ...more });
const strings = nullable('object', { additionalProperties: { type: 'string' } });

/**
 * ObjectMeta as the API server decodes it (a CRD's schema may not constrain more than its name, which the API
 * server checks itself): its fields, their JSON types (Go's decoder takes null for any of them), and no others, as
 * strict field validation refuses unknown ones ("strict decoding error: unknown field "metadata.x"").
 */
const OBJECT_META: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...Object.fromEntries(
      [
        'name',
        'generateName',
        'namespace',
        'selfLink',
        'uid',
        'resourceVersion',
        'creationTimestamp',
        'deletionTimestamp',
      ].map((k) => [k, nullable('string')]),
    ),
    generation: nullable('integer'),
    deletionGracePeriodSeconds: nullable('integer'),
    labels: strings,
    annotations: strings,
    finalizers: nullable('array', { items: { type: 'string' } }),
    ownerReferences: nullable('array', {
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
          controller: nullable('boolean'),
          blockOwnerDeletion: nullable('boolean'),
        },
      },
    }),
    managedFields: nullable('array', {
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          manager: { type: 'string' },
          operation: { type: 'string' },
          apiVersion: { type: 'string' },
          time: nullable('string'),
          fieldsType: { type: 'string' },
          fieldsV1: {},
          subresource: { type: 'string' },
        },
      },
    }),
  },
};

/** Only a converted schema's unknown-field checks: its shape (properties, items, closed maps), no value validation. */
function fieldsOnly(s: Schema): Schema {
  const out: Schema = {};
  if (isRecord(s['properties']))
    out['properties'] = Object.fromEntries(
      Object.entries(s['properties']).map(([k, v]) => [k, isRecord(v) ? fieldsOnly(v) : {}]),
    );
  if (isRecord(s['additionalProperties'])) out['additionalProperties'] = fieldsOnly(s['additionalProperties']);
  else if (s['additionalProperties'] === false) out['additionalProperties'] = false;
  if (isRecord(s['items'])) out['items'] = fieldsOnly(s['items']);
  return out;
}

function typesOf(s: Schema): string[] | undefined {
  if (s['x-kubernetes-int-or-string'] === true) return ['integer', 'string'];
  return typeof s['type'] === 'string' ? [s['type']] : undefined;
}

/** `closed`: unknown fields are errors here. False inside allOf/anyOf/oneOf/not, which only add value checks. */
function convert(s: Schema, closed: boolean, state: State, at: string): Schema {
  const out: Schema = {};
  for (const k of COPIED) if (s[k] !== undefined) out[k] = s[k];
  if (typeof out['pattern'] === 'string') {
    const problem = state.options.patternProblem(out['pattern']);
    if (problem)
      state.patternNotes.push(`${at || '<root>'}: pattern ${JSON.stringify(out['pattern'])} ${problem.reason}`);
    if (problem && !problem.checked) delete out['pattern'];
  }
  let types = typesOf(s);
  if (s['nullable'] === true) {
    if (types) types = [...types, 'null'];
    if (Array.isArray(out['enum'])) out['enum'] = [...(out['enum'] as unknown[]), null];
  }
  if (types) out['type'] = types.length === 1 ? types[0] : types;
  // OpenAPI v3.0 exclusive bounds are booleans modifying minimum/maximum; JSON Schema's are numbers.
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (s[flag] === true && typeof s[bound] === 'number') {
      out[flag] = s[bound];
      delete out[bound];
    }
  }
  if (typeof s['format'] === 'string' && state.options.formats.includes(s['format'])) out['format'] = s['format'];
  if (Array.isArray(s['x-kubernetes-validations'])) state.celRules += s['x-kubernetes-validations'].length;

  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const props = isRecord(s['properties']) ? s['properties'] : undefined;
  if (props)
    out['properties'] = Object.fromEntries(
      Object.entries(props)
        .filter(([, v]) => isRecord(v))
        .map(([k, v]) => [k, convert(v as Schema, closed, state, at ? `${at}.${k}` : k)]),
    );
  if (isRecord(s['additionalProperties']))
    out['additionalProperties'] = convert(s['additionalProperties'], closed, state, `${at}[*]`);
  else if (s['additionalProperties'] === false) out['additionalProperties'] = false;
  if (isRecord(s['items'])) out['items'] = convert(s['items'], closed, state, `${at}[*]`);
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[junctor];
    // int-or-string's anyOf [{type: integer}, {type: string}] only restates the type union.
    if (
      !Array.isArray(list) ||
      (typesOf(s)?.length === 2 && list.every((b) => isRecord(b) && Object.keys(b).every((k) => k === 'type')))
    )
      continue;
    out[junctor] = list.filter(isRecord).map((b) => convert(b, false, state, at));
  }
  if (isRecord(s['not'])) out['not'] = convert(s['not'], false, state, at);

  if (s['x-kubernetes-embedded-resource'] === true) {
    // An embedded object (a template) always has apiVersion, kind and an ObjectMeta the server checks itself.
    const p = { ...(out['properties'] as Record<string, Schema> | undefined) };
    p['apiVersion'] ??= { type: 'string' };
    p['kind'] ??= { type: 'string' };
    p['metadata'] = OBJECT_META;
    out['properties'] = p;
    out['required'] = [
      ...new Set([...(Array.isArray(out['required']) ? (out['required'] as string[]) : []), 'apiVersion', 'kind']),
    ];
  }
  const isObject = types?.includes('object') || props !== undefined;
  if (closed && isObject && !preserve && s['additionalProperties'] === undefined) out['additionalProperties'] = false;

  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  if (listType === 'map' && Array.isArray(keys))
    out[LIST_KEYWORD] = { type: 'map', keys: keys.filter((k) => typeof k === 'string') } satisfies ListRule;
  else if (listType === 'set') out[LIST_KEYWORD] = { type: 'set' } satisfies ListRule;
  return out;
}
