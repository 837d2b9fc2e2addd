// AdmissionReview out: named constructors for every outcome, and one function that finishes the envelope
// (uid echoed, patch base64-encoded, empty fields omitted).
import type { PatchOperation } from '../core/types.js';

/**
 * Kubernetes recommends short warnings; longer ones may be truncated by clients. Warnings travel in an HTTP
 * header, so the cut is marked with ASCII "..." (a non-ASCII character arrives garbled in many clients).
 */
export const MAX_WARNING_LENGTH = 120;

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

export function shortWarning(text: string): string {
  return text.length <= MAX_WARNING_LENGTH ? text : `${text.slice(0, MAX_WARNING_LENGTH - 3)}...`;
}

export function toAdmissionReview(uid: string, result: AdmissionResult): AdmissionReviewOut {
  const response: AdmissionResponse = { uid, allowed: result.allowed };
  if (result.status) response.status = { ...result.status };
  if (result.patch && result.patch.length > 0) {
    response.patch = Buffer.from(JSON.stringify(result.patch)).toString('base64');
    response.patchType = 'JSONPatch';
  }
  if (result.warnings.length > 0) response.warnings = result.warnings.map(shortWarning);
  if (Object.keys(result.auditAnnotations).length > 0) response.auditAnnotations = { ...result.auditAnnotations };
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}
