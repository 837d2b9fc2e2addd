// AdmissionReview out: named constructors for every outcome, and one function that finishes the envelope
// (uid echoed, patch base64-encoded, empty fields omitted).
import type { PatchOperation } from '../core/types.js';
import { clip, MAX_ERROR_BYTES, MAX_PATCH_BYTES, MAX_WARNING_LENGTH } from './limits.js';

export { MAX_WARNING_LENGTH } from './limits.js';

export interface AdmissionResult {
  allowed: boolean;
  status?: { code: number; reason: string; message: string };
  patch?: readonly PatchOperation[];
  warnings: readonly string[];
  auditAnnotations: Readonly<Record<string, string>>;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason?: string; message: string };
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export interface AdmissionReviewOut {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

interface Extras {
  warnings?: readonly string[];
  auditAnnotations?: Readonly<Record<string, string>>;
}

export function allowed(extras: Extras = {}): AdmissionResult {
  return { allowed: true, warnings: extras.warnings ?? [], auditAnnotations: extras.auditAnnotations ?? {} };
}

export function patched(patch: readonly PatchOperation[], extras: Extras = {}): AdmissionResult {
  const result = allowed(extras);
  if (patch.length > 0) result.patch = patch;
  return result;
}

export function denied(message: string, extras: Extras = {}): AdmissionResult {
  return {
    allowed: false,
    status: { code: 403, reason: 'Forbidden', message },
    warnings: extras.warnings ?? [],
    auditAnnotations: extras.auditAnnotations ?? {},
  };
}

/** The webhook could not decide (a bug or a fault): never an allow; the API server applies failurePolicy. */
export function errored(code: number, message: string): AdmissionResult {
  return { allowed: false, status: { code, reason: code >= 500 ? 'InternalError' : 'BadRequest', message }, warnings: [], auditAnnotations: {} };
}

/** Warnings travel in an HTTP header: kept to the recommended length (src/admission/limits.ts). */
export function shortWarning(text: string): string {
  return clip(text, Number.POSITIVE_INFINITY, MAX_WARNING_LENGTH);
}

export function toAdmissionReview(uid: string, result: AdmissionResult): AdmissionReviewOut {
  const response: AdmissionResponse = { uid, allowed: result.allowed };
  if (result.status) response.status = { ...result.status, message: result.allowed || result.status.code === 403 ? result.status.message : clip(result.status.message, MAX_ERROR_BYTES) };
  if (result.patch && result.patch.length > 0) {
    const patch = Buffer.from(JSON.stringify(result.patch));
    if (patch.length > MAX_PATCH_BYTES) {
      return toAdmissionReview(uid, errored(500, `hookkeeper's patch of ${patch.length} bytes exceeds the ${MAX_PATCH_BYTES}-byte limit of its answer; the object was not changed`));
    }
    response.patch = patch.toString('base64');
    response.patchType = 'JSONPatch';
  }
  if (result.warnings.length > 0) response.warnings = result.warnings.map(shortWarning);
  if (Object.keys(result.auditAnnotations).length > 0) response.auditAnnotations = { ...result.auditAnnotations };
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}
