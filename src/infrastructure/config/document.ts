// One YAML document checked against a JSON schema (ajv, every error), each problem at its file, path and line: the
// policy file (src/infrastructure/config/load.ts) and `hookkeeper test` files (src/transports/policy-test/load.ts) are read alike.
import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import { escapePointerToken } from '../../core/pointer.js';
import { AppError, type Problem } from '../../errors.js';
import { documentProblems, type ProblemAt } from './paths.js';
import { nearest } from './suggest.js';
import { parseYamlDocuments, type YamlDocument } from './yaml.js';

// verbose: an error carries its schema, whose known keys name the nearest one to an unknown key.
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });

export function compileSchema<T = unknown>(schema: AnySchema): ValidateFunction<T> {
  return ajv.compile<T>(schema);
}

export interface SchemaError {
  error: ErrorObject;
  /** Where it is reported: an unknown or badly named key at the key itself, not at the object holding it. */
  pointer: string;
  /** The key the schema does not know (additionalProperties), when that is the error. */
  unknown?: string;
}

export interface CheckedDocument {
  doc: YamlDocument;
  at: ProblemAt;
  /** Each key given twice, then each schema error, in ajv's order: the loader adds its own checks' after. */
  problems: Problem[];
  schemaErrors: SchemaError[];
}

/** Why the text gave no document to check: it does not parse, or holds none or several. */
export interface Unreadable {
  problems: Problem[];
  cause?: AppError;
}

/**
 * Parses `text` as one YAML document (lines at keys, a key given twice reported beside the rest) and checks it with
 * `validate`. `what` names the document in "expected one YAML document (a PolicyTest), found 2".
 */
export function checkDocument(
  text: string,
  file: string,
  validate: ValidateFunction,
  options: { merge?: boolean; what?: string } = {},
): CheckedDocument | Unreadable {
  let docs: YamlDocument[];
  try {
    docs = parseYamlDocuments(text, file, { lines: 'key', duplicateKeys: 'report', merge: options.merge === true });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { problems: err.problems.length > 0 ? [...err.problems] : [{ file, message: err.message }], cause: err };
  }
  if (docs.length !== 1) {
    const what = options.what === undefined ? '' : ` (${options.what})`;
    return { problems: [{ file, message: `expected one YAML document${what}, found ${docs.length}` }] };
  }
  const doc = docs[0] as YamlDocument;
  const { at, problems } = documentProblems(doc, file);
  const schemaErrors: SchemaError[] = [];
  if (!validate(doc.value)) {
    for (const error of validate.errors ?? []) {
      const unknown = error.keyword === 'additionalProperties' ? String(error.params['additionalProperty']) : undefined;
      const key =
        unknown ??
        error.propertyName ??
        (error.keyword === 'propertyNames' ? String(error.params['propertyName']) : undefined);
      const pointer = key === undefined ? error.instancePath : `${error.instancePath}/${escapePointerToken(key)}`;
      schemaErrors.push({ error, pointer, ...(unknown === undefined ? {} : { unknown }) });
      problems.push(at(pointer, schemaMessage(error, unknown)));
    }
  }
  return { doc, at, problems, schemaErrors };
}

/** A schema error in the user's terms: the value a constant must have, the nearest known key to an unknown one. */
function schemaMessage(e: ErrorObject, unknown: string | undefined): string {
  if (unknown !== undefined) {
    const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    const near = nearest(unknown, known);
    return near === undefined
      ? `unknown key ${JSON.stringify(unknown)} (known keys: ${known.join(', ')})`
      : `unknown key ${JSON.stringify(unknown)}: did you mean ${JSON.stringify(near)}?`;
  }
  if (e.keyword === 'const') return `must be ${JSON.stringify(e.params['allowedValue'])}`;
  if (e.keyword === 'enum')
    return `${e.message ?? 'is invalid'}: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
  // "must be string or object" where ajv says "must be string,object" (a single type reads the same either way).
  if (e.keyword === 'type') return `must be ${String(e.params['type']).split(',').join(' or ')}`;
  return e.message ?? 'is invalid';
}
