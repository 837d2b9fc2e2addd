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

/**
 * A patch too large to send: a fault, not an answer. Cutting it would be a different mutation, and an
 * `allowed: false` review would be a rejection the API server never weighs against failurePolicy; the server
 * answers a fault with HTTP 500, which it does.
 */
export class PatchTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(
      `hookkeeper's patch of ${bytes} bytes exceeds the ${MAX_PATCH_BYTES}-byte limit of its answer; the object was not changed`,
    );
    this.name = 'PatchTooLarge';
  }
}

/** Warnings travel in an HTTP header: kept to the recommended length (src/admission/limits.ts). */
export function shortWarning(text: string): string {
  return clip(text, Number.POSITIVE_INFINITY, MAX_WARNING_LENGTH);
}

export function toAdmissionReview(uid: string, result: AdmissionResult): AdmissionReviewOut {
  const response: AdmissionResponse = { uid, allowed: result.allowed };
  if (result.status)
    response.status = {
      ...result.status,
      message:
        result.allowed || result.status.code === 403
          ? result.status.message
          : clip(result.status.message, MAX_ERROR_BYTES),
    };
  if (result.patch && result.patch.length > 0) {
    const patch = Buffer.from(JSON.stringify(result.patch));
    if (patch.length > MAX_PATCH_BYTES) {
      throw new PatchTooLarge(patch.length);
    }
    response.patch = patch.toString('base64');
    response.patchType = 'JSONPatch';
  }
  if (result.warnings.length > 0) response.warnings = result.warnings.map(shortWarning);
  if (Object.keys(result.auditAnnotations).length > 0) response.auditAnnotations = { ...result.auditAnnotations };
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}
