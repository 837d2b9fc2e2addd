// `validate --crd FILE`: checks each object against its CustomResourceDefinition's openAPIV3Schema for the
// object's version, as the API server will: nulls pruned and defaults applied before validation, patterns with
// RE2 semantics (Go's regexp). Schemas compile on first use (Cluster API's are large).
import { createRequire } from 'node:module';
import { isIPv4, isIPv6 } from 'node:net';
import type { Ajv, ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';
import { isRecord } from '../../core/guards.js';
import type { GroupVersionKind, KubeObject } from '../../core/types.js';
import { AppError } from '../../errors.js';
import { describeSchemaErrors, type SchemaFinding } from './crd-errors.js';
import { parseManifests } from '../../infrastructure/manifests/documents.js';
import { pruneNulls } from './nulls.js';
import { convertCrdSchema, LIST_KEYWORD, type ListRule } from './structural.js';

interface CrdVersion {
  served: boolean;
  schema?: Record<string, unknown>;
  statusSubresource: boolean;
  compiled?: ValidateFunction;
}

interface CrdEntry {
  name: string;
  file: string;
  group: string;
  kind: string;
  versions: Map<string, CrdVersion>;
}

/** The formats the API server checks (apiextensions supportedFormats) that hookkeeper implements; others are ignored. */
const FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/.test(s),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  uuid: (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: (s) => {
    const [ip, bits, extra] = s.split('/');
    const max = isIPv4(ip ?? '') ? 32 : isIPv6(ip ?? '') ? 128 : -1;
    return extra === undefined && /^\d+$/.test(bits ?? '') && Number(bits) <= max;
  },
};

function listKey(rule: ListRule, item: unknown): string {
  if (rule.type === 'set') return JSON.stringify(item);
  return JSON.stringify(rule.keys.map((k) => (isRecord(item) ? item[k] : undefined)));
}

function compilesAsRe2(pattern: string): boolean {
  try {
    RE2JS.compile(pattern);
    return true;
  } catch {
    return false;
  }
}

function compilesAsJs(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** The API server compiles `pattern` with Go's regexp (RE2 syntax); a CRD it could not compile, it refuses. */
function patternProblem(pattern: string): { checked: boolean; reason: string } | undefined {
  if (compilesAsRe2(pattern)) return undefined;
  if (compilesAsJs(pattern))
    return {
      checked: true,
      reason: 'is not RE2 syntax (the API server would refuse this CRD): checked as a JavaScript regular expression',
    };
  return {
    checked: false,
    reason: "not checked: it compiles neither as RE2 (the API server's syntax) nor as a JavaScript regular expression",
  };
}

/**
 * ajv's regular-expression engine: RE2 (re2js, linear time, Go's syntax and semantics: `\z`, `[[:alpha:]]`, `(?i)`),
 * or JavaScript's for a pattern only it compiles (patternProblem has noted it); ajv calls `test`, an unanchored search.
 */
const regExp: RegExpEngine = Object.assign(
  (pattern: string) => (compilesAsRe2(pattern) ? RE2JS.compile(pattern) : new RegExp(pattern, 'u')),
  { code: 're2js' },
);

function createAjv(): Ajv {
  // Loaded here, not imported: ajv is slow to load, and only a run with --crd needs it (its build is
  // CommonJS, so this is the instance an `import` gets).
  const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as { Ajv: typeof Ajv };
  // useDefaults: the API server applies a schema's defaults before it validates, so `required` sees them.
  const ajv = new AjvClass({
    allErrors: true,
    strict: false,
    validateFormats: true,
    useDefaults: true,
    code: { regExp },
  });
  for (const [name, validate] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  ajv.addKeyword({
    keyword: LIST_KEYWORD,
    type: 'array',
    schemaType: 'object',
    errors: true,
    validate: function unique(
      rule: ListRule,
      data: unknown[],
      _parent: unknown,
      cxt?: { instancePath: string },
    ): boolean {
      const seen = new Set<string>();
      const errors: Array<Record<string, unknown>> = [];
      data.forEach((item, i) => {
        const key = listKey(rule, item);
        if (!seen.has(key)) return seen.add(key);
        const value =
          rule.type === 'set'
            ? item
            : Object.fromEntries(rule.keys.map((k) => [k, isRecord(item) ? item[k] : undefined]));
        const fix =
          rule.type === 'set'
            ? 'remove the repeated item'
            : `keep one item per ${rule.keys.join('/')}: merge or rename the repeated one`;
        errors.push({
          keyword: LIST_KEYWORD,
          instancePath: `${cxt?.instancePath ?? ''}/${i}`,
          message: 'duplicate',
          params: { value, fix },
        });
        return undefined;
      });
      (unique as unknown as { errors: unknown }).errors = errors;
      return errors.length === 0;
    },
  });
  return ajv;
}

export class CrdSet {
  private readonly ajv = createAjv();
  /** Things a user should know about the checks (CEL rules skipped), each said once. */
  readonly notes: string[] = [];

  private constructor(private readonly entries: ReadonlyMap<string, CrdEntry>) {}

  static parse(files: ReadonlyArray<{ file: string; text: string }>): CrdSet {
    const entries = new Map<string, CrdEntry>();
    for (const { file, text } of files) {
      const values = parseManifests(text, file).flatMap((d) =>
        isRecord(d.value) && Array.isArray(d.value['items']) ? (d.value['items'] as unknown[]) : [d.value],
      );
      const before = entries.size;
      for (const v of values) {
        const entry = crdEntry(v, file);
        if (!entry) continue;
        const id = `${entry.group}/${entry.kind}`;
        const other = entries.get(id);
        if (other) throw new AppError('USAGE', `--crd: ${entry.name} is defined twice (${other.file} and ${file})`);
        entries.set(id, entry);
      }
      if (entries.size === before)
        throw new AppError('USAGE', `--crd ${file}: no apiextensions.k8s.io CustomResourceDefinition in it`);
    }
    return new CrdSet(entries);
  }

  /** Schema findings for an object, or [] when no given CRD defines its group and kind. */
  validate(gvk: GroupVersionKind, object: KubeObject): SchemaFinding[] {
    const entry = this.entries.get(`${gvk.group}/${gvk.kind}`);
    if (!entry) return [];
    const version = entry.versions.get(gvk.version);
    if (!version || !version.served) {
      const served = [...entry.versions].filter(([, v]) => v.served).map(([name]) => `${gvk.group}/${name}`);
      return [
        {
          path: 'apiVersion',
          keys: ['apiVersion'],
          message: `no matches for kind ${JSON.stringify(gvk.kind)} in version ${JSON.stringify(`${gvk.group}/${gvk.version}`)}`,
          fix: `use a version ${entry.name} serves: ${served.join(', ') || '(none)'}`,
        },
      ];
    }
    const schema = version.schema;
    if (!schema) return [];
    if (!version.compiled) {
      const converted = convertCrdSchema(schema, {
        statusSubresource: version.statusSubresource,
        formats: Object.keys(FORMATS),
        patternProblem,
      });
      version.compiled = this.ajv.compile(converted.schema);
      for (const note of converted.patternNotes) this.notes.push(`${entry.name} ${gvk.version}: ${note}`);
      if (converted.celRules > 0)
        this.notes.push(
          `${entry.name} ${gvk.version}: ${converted.celRules} x-kubernetes-validations (CEL) rule(s) not checked; the API server will evaluate them`,
        );
    }
    // What the API server validates: the object with non-nullable nulls pruned and defaults applied (by ajv, in
    // place: on a copy, so the caller's object and the findings' line lookups are unchanged).
    const decoded = structuredClone(object);
    pruneNulls(decoded, schema);
    return version.compiled(decoded) ? [] : describeSchemaErrors(version.compiled.errors ?? [], decoded);
  }
}

function crdEntry(value: unknown, file: string): CrdEntry | undefined {
  if (!isRecord(value) || value['kind'] !== 'CustomResourceDefinition') return undefined;
  const apiVersion = value['apiVersion'];
  if (apiVersion !== 'apiextensions.k8s.io/v1' && apiVersion !== 'apiextensions.k8s.io/v1beta1') return undefined;
  const spec = isRecord(value['spec']) ? value['spec'] : {};
  const names = isRecord(spec['names']) ? spec['names'] : {};
  const meta = isRecord(value['metadata']) ? value['metadata'] : {};
  if (typeof spec['group'] !== 'string' || typeof names['kind'] !== 'string') {
    throw new AppError('USAGE', `--crd ${file}: a CustomResourceDefinition lacks spec.group or spec.names.kind`);
  }
  // v1beta1 CRDs may hold one schema and one subresources stanza for every version.
  const sharedSchema = isRecord(spec['validation']) ? spec['validation']['openAPIV3Schema'] : undefined;
  const versions = new Map<string, CrdVersion>();
  for (const v of Array.isArray(spec['versions']) ? spec['versions'] : []) {
    if (!isRecord(v) || typeof v['name'] !== 'string') continue;
    const schema = isRecord(v['schema']) ? v['schema']['openAPIV3Schema'] : sharedSchema;
    const sub = isRecord(v['subresources'])
      ? v['subresources']
      : isRecord(spec['subresources'])
        ? spec['subresources']
        : {};
    versions.set(v['name'], {
      served: v['served'] !== false,
      ...(isRecord(schema) ? { schema } : {}),
      statusSubresource: sub['status'] !== undefined,
    });
  }
  if (versions.size === 0 && typeof spec['version'] === 'string') {
    versions.set(spec['version'], {
      served: true,
      ...(isRecord(sharedSchema) ? { schema: sharedSchema } : {}),
      statusSubresource: isRecord(spec['subresources']) && spec['subresources']['status'] !== undefined,
    });
  }
  return {
    name: typeof meta['name'] === 'string' ? meta['name'] : `${String(names['kind'])}.${spec['group']}`,
    file,
    group: spec['group'],
    kind: names['kind'],
    versions,
  };
}
