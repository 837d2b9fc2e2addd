// ajv's errors -> field errors worded as the API server words CRD schema violations (apiextensions-apiserver
// turns kube-openapi errors into field.Required, field.NotSupported, field.TooMany, ... and prints them as
// "<path>: <type>: <detail>"), with field paths in its notation: spec.list[0].name.
import type { ErrorObject } from 'ajv';
import { unescapePointerToken } from '../../core/pointer.js';
import {
  duplicate,
  formatValue,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from '../../core/field-errors.js';
import { isRecord } from '../../core/guards.js';

export interface SchemaFinding {
  /** Field path in the API server's notation. */
  path: string;
  /** Keys from the object root, for line lookup. */
  keys: Array<string | number>;
  message: string;
  fix: string;
}

function tokens(instancePath: string): string[] {
  return instancePath === '' ? [] : instancePath.slice(1).split('/').map(unescapePointerToken);
}

/** Walks the data so array indexes print as [i] and map keys as .key, and returns the value found. */
function locate(data: unknown, raw: readonly string[]): { path: string; keys: Array<string | number>; value: unknown } {
  let path = '';
  let value = data;
  const keys: Array<string | number> = [];
  for (const t of raw) {
    if (Array.isArray(value)) {
      path += `[${t}]`;
      keys.push(Number(t));
      value = value[Number(t)];
    } else {
      path += path === '' ? t : `.${t}`;
      keys.push(t);
      value = isRecord(value) ? value[t] : undefined;
    }
  }
  return { path, keys, value };
}

const JUNCTOR_WORDS: Readonly<Record<string, string>> = {
  anyOf: 'must validate at least one schema (anyOf)',
  oneOf: 'must validate one and only one schema (oneOf)',
  not: 'must not validate the schema (not)',
};

function describe(e: ErrorObject, data: unknown): SchemaFinding {
  const { path: at, keys, value } = locate(data, tokens(e.instancePath));
  const p = at === '' ? '<root>' : at;
  const child = (name: string): { path: string; keys: Array<string | number> } => ({
    path: at === '' ? name : `${at}.${name}`,
    keys: [...keys, name],
  });
  const inBody = (detail: string, fix: string): SchemaFinding => ({
    path: p,
    keys,
    message: invalid(p, value, `${p} in body ${detail}`).message,
    fix,
  });
  const params = e.params as Record<string, unknown>;
  const limit = String(params['limit']);
  switch (e.keyword) {
    case 'required': {
      const c = child(String(params['missingProperty']));
      return { ...c, message: required(c.path).message, fix: `set ${c.path}` };
    }
    case 'additionalProperties': {
      const c = child(String(params['additionalProperty']));
      return {
        ...c,
        message: `strict decoding error: unknown field ${JSON.stringify(c.path)}`,
        fix: `remove ${c.path} or correct its name: the CRD does not declare it, so the API server rejects it (strict field validation, kubectl's default) or silently drops it`,
      };
    }
    case 'type': {
      const want = (
        Array.isArray(params['type']) ? (params['type'] as string[]) : String(params['type']).split(',')
      ).filter((t) => t !== 'null');
      const wanted =
        want.length === 2 && want.includes('integer') && want.includes('string')
          ? 'integer-or-string'
          : want.join(' or ');
      return {
        path: p,
        keys,
        message: typeInvalid(p, value, wanted).message,
        fix: `make ${p} ${/^[aeiou]/.test(wanted) ? 'an' : 'a'} ${wanted}`,
      };
    }
    case 'enum': {
      const values = params['allowedValues'] as unknown[];
      return {
        path: p,
        keys,
        message: notSupported(p, value, values).message,
        fix: `use one of ${values.map(formatValue).join(', ')}`,
      };
    }
    case 'pattern':
      return inBody(`should match '${String(params['pattern'])}'`, `make ${p} match ${String(params['pattern'])}`);
    case 'minLength':
      return inBody(`should be at least ${limit} chars long`, `make ${p} at least ${limit} characters long`);
    case 'maxLength':
      return {
        path: p,
        keys,
        message: tooLong(p, value, Number(params['limit'])).message,
        fix: `shorten ${p} to at most ${limit} characters`,
      };
    case 'minItems':
      return {
        path: p,
        keys,
        message: invalid(p, Array.isArray(value) ? value.length : 0, `${p} in body should have at least ${limit} items`)
          .message,
        fix: `give ${p} at least ${limit} items`,
      };
    case 'maxItems':
      return {
        path: p,
        keys,
        message: tooMany(p, Array.isArray(value) ? value.length : 0, Number(params['limit'])).message,
        fix: `keep at most ${limit} items in ${p}`,
      };
    case 'maxProperties':
      return {
        path: p,
        keys,
        message: tooMany(p, isRecord(value) ? Object.keys(value).length : 0, Number(params['limit'])).message,
        fix: `keep at most ${limit} entries in ${p}`,
      };
    case 'minProperties':
      return {
        path: p,
        keys,
        message: invalid(
          p,
          isRecord(value) ? Object.keys(value).length : 0,
          `${p} in body should have at least ${limit} properties`,
        ).message,
        fix: `give ${p} at least ${limit} entries`,
      };
    case 'minimum':
      return inBody(`should be greater than or equal to ${limit}`, `make ${p} at least ${limit}`);
    case 'exclusiveMinimum':
      return inBody(`should be greater than ${limit}`, `make ${p} greater than ${limit}`);
    case 'maximum':
      return inBody(`should be less than or equal to ${limit}`, `make ${p} at most ${limit}`);
    case 'exclusiveMaximum':
      return inBody(`should be less than ${limit}`, `make ${p} less than ${limit}`);
    case 'multipleOf':
      return inBody(
        `should be a multiple of ${String(params['multipleOf'])}`,
        `make ${p} a multiple of ${String(params['multipleOf'])}`,
      );
    case 'format': {
      const format = String(params['format']);
      return {
        path: p,
        keys,
        message: invalid(p, value, `${p} in body must be of type ${format}: ${formatValue(value)}`).message,
        fix: `write ${p} as a valid ${format}`,
      };
    }
    case 'uniqueItems': {
      const dup = locate(data, [...tokens(e.instancePath), String(params['i'])]);
      return {
        path: dup.path,
        keys: dup.keys,
        message: duplicate(dup.path, dup.value).message,
        fix: `remove the duplicate item from ${p}`,
      };
    }
    case 'k8sListUnique':
      return { path: p, keys, message: duplicate(p, params['value']).message, fix: String(params['fix']) };
    default:
      return inBody(JUNCTOR_WORDS[e.keyword] ?? e.message ?? `fails ${e.keyword}`, `make ${p} match the CRD's schema`);
  }
}

/** One finding per real violation: errors from inside anyOf/oneOf/not branches only explain their parent's error. */
export function describeSchemaErrors(errors: readonly ErrorObject[], data: unknown): SchemaFinding[] {
  const out: SchemaFinding[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (/\/(anyOf|oneOf|not)\//.test(e.schemaPath)) continue;
    const f = describe(e, data);
    if (seen.has(f.message)) continue;
    seen.add(f.message);
    out.push(f);
  }
  return out;
}
