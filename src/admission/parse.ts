// AdmissionReview in: checks the envelope once with ajv and turns it into the engine's ReviewInput.
// A body that fails here is a client error (HTTP 400), never a policy decision.
import { Ajv } from 'ajv';
import type { Operation, ReviewInput } from '../core/types.js';
import { isRecord } from '../core/guards.js';
import { clip, MAX_ERROR_BYTES, MAX_PROBLEMS_SHOWN } from './limits.js';
import { ADMISSION_REVIEW_SCHEMA, MAX_UID_LENGTH } from './schema.js';

/** What ADMISSION_REVIEW_SCHEMA guarantees about a body that passes it. */
interface Envelope {
  request: {
    uid: string;
    kind: { group: string; version: string; kind: string };
    namespace?: string;
    name?: string;
    operation: Operation;
    userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[] | null> };
    object?: Record<string, unknown> | null;
    oldObject?: Record<string, unknown> | null;
    dryRun?: boolean;
  };
}

const compile = () =>
  new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile<Envelope>(ADMISSION_REVIEW_SCHEMA);
let compiled: ReturnType<typeof compile> | undefined;

/**
 * The envelope check, compiled on first use: `validate` loads this module and most of its runs never see an
 * AdmissionReview. `serve` calls it at start-up so that no request pays for the compile.
 */
export function envelopeCheck(): ReturnType<typeof compile> {
  compiled ??= compile();
  return compiled;
}

export interface ParsedReview {
  uid: string;
  input: ReviewInput;
}

export type ParseResult =
  { ok: true; review: ParsedReview } | { ok: false; error: string; problems: string[]; uid?: string };

export function parseAdmissionReview(body: unknown): ParseResult {
  const validateEnvelope = envelopeCheck();
  if (!validateEnvelope(body)) {
    const errors = validateEnvelope.errors ?? [];
    const problems = errors.slice(0, MAX_PROBLEMS_SHOWN).map((e) => {
      const where = e.instancePath === '' ? 'body' : e.instancePath.slice(1).replace(/\//g, '.');
      const detail =
        e.keyword === 'const'
          ? `must be ${JSON.stringify(e.params['allowedValue'])}`
          : e.keyword === 'enum'
            ? `must be one of ${(e.params['allowedValues'] as unknown[]).join(', ')}`
            : (e.message ?? 'is invalid');
      return clip(`${where} ${detail}`, MAX_ERROR_BYTES);
    });
    if (errors.length > problems.length) problems.push(`and ${errors.length - problems.length} more problems`);
    const uid = readUid(body);
    return {
      ok: false,
      error: 'invalid AdmissionReview: expected admission.k8s.io/v1 AdmissionReview with a request',
      problems,
      ...(uid ? { uid } : {}),
    };
  }
  const req = body.request;
  const missing = missingObjects(req.operation, req.object, req.oldObject);
  if (missing.length > 0) {
    return {
      ok: false,
      error: `invalid AdmissionReview: a ${req.operation} request carries ${(REQUIRED_OBJECTS[req.operation] ?? []).join(' and ')}`,
      problems: missing,
      uid: req.uid,
    };
  }
  return {
    ok: true,
    review: {
      uid: req.uid,
      input: {
        operation: req.operation,
        kind: { group: req.kind.group, version: req.kind.version, kind: req.kind.kind },
        ...(req.namespace === undefined ? {} : { namespace: req.namespace }),
        ...(req.name === undefined ? {} : { name: req.name }),
        object: req.object ?? null,
        oldObject: req.oldObject ?? null,
        userInfo: {
          username: req.userInfo.username ?? '',
          ...(req.userInfo.uid === undefined ? {} : { uid: req.userInfo.uid }),
          groups: req.userInfo.groups ?? [],
          ...(req.userInfo.extra === undefined ? {} : { extra: extraOf(req.userInfo.extra) }),
        },
        dryRun: req.dryRun === true,
      },
    },
  };
}

/** userInfo.extra as a plain map of lists (a null value is an empty list); own keys only, `__proto__` included. */
function extraOf(extra: Record<string, string[] | null>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v ?? []]));
}

/**
 * The objects the API server always sends with each operation (admission.k8s.io/v1 AdmissionRequest: `object`
 * is null for DELETE, `oldObject` is populated for UPDATE and DELETE only; CONNECT's object is its options).
 * Without them, the rules would have nothing to judge and the request would be allowed unchecked.
 */
const REQUIRED_OBJECTS: Readonly<Record<string, readonly ('object' | 'oldObject')[]>> = {
  CREATE: ['object'],
  UPDATE: ['object', 'oldObject'],
  DELETE: ['oldObject'],
  CONNECT: [],
};

function missingObjects(operation: string, object: unknown, oldObject: unknown): string[] {
  const sent = { object, oldObject };
  return (REQUIRED_OBJECTS[operation] ?? [])
    .filter((f) => sent[f] === undefined || sent[f] === null)
    .map((f) => `request.${f} is required for ${operation}`);
}

/** The request uid, when one can be read from an otherwise invalid body, so the error can name it. */
export function readUid(body: unknown): string | undefined {
  const req = isRecord(body) ? body['request'] : undefined;
  const uid = isRecord(req) ? req['uid'] : undefined;
  return typeof uid === 'string' && uid !== '' && uid.length <= MAX_UID_LENGTH ? uid : undefined;
}
