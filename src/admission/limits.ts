// How much of a decision fits in one AdmissionReview answer. A Machine may carry tens of thousands of hooks (the
// CRD sets no maxItems), so every list in the answer is cut to a handful and counted; the full lists go to the log.

/**
 * Any answer, whatever the request. The API server reads the whole answer within the webhook's timeout for every
 * write to a guarded object; a few clients removing thousands of hooks must not push ordinary reviews past it.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** Violations named in full in a denial; the rest are counted ("; and N more violations"). */
export const MAX_DENIALS_SHOWN = 5;
/** One violation in a denial, as JSON bytes: the core's, which the native policies' CEL cuts at too. */
export { MAX_VIOLATION_BYTES } from '../core/messages/limits.js';

/**
 * admission.k8s.io/v1 AdmissionResponse.warnings: "Limit warnings to 120 characters if possible. Warnings over
 * 256 characters and large numbers of warnings may be truncated." The API server's warning recorder
 * (apiserver/pkg/endpoints/filters/warning.go) cuts every warning to 256 runes once all of them pass 4096
 * runes, and then drops the rest. hookkeeper stays below both: at most MAX_WARNINGS warnings of at most 120
 * characters (the last one counting the others), so at most 960 characters and 4 KiB in UTF-8.
 */
export const MAX_WARNING_LENGTH = 120;
export const MAX_WARNINGS = 8;
export const MAX_WARNINGS_BYTES = 4 * 1024;

/**
 * auditAnnotations: each key is prefixed with the webhook's name and must then be a qualified name (name part at
 * most 63 characters), or the API server drops it. Webhooks have no documented value limit; ValidatingAdmissionPolicy
 * cuts its audit annotation values at 10 KB. Each entry lands in one audit event line, so hookkeeper keeps a few,
 * each at most MAX_AUDIT_VALUE_BYTES, and counts the others under OMITTED_AUDIT_KEY.
 */
export const MAX_AUDIT_ANNOTATIONS = 8;
export const MAX_AUDIT_VALUE_BYTES = 2 * 1024;
export const OMITTED_AUDIT_KEY = 'omitted-audit-entries';

/** A patch larger than this is refused (500), never cut: a partial patch would be a different mutation. */
export const MAX_PATCH_BYTES = 16 * 1024;

/** An error text in a 400 or 500 answer. */
export const MAX_ERROR_BYTES = 1024;

/**
 * The bytes one UTF-16 code unit takes in the JSON answer (UTF-8, after JSON.stringify's escaping): an upper
 * bound, since a surrogate is counted as a lone one (written \udXXX) even when it is half of a pair.
 */
function jsonBytes(code: number): number {
  if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  return 3;
}

/**
 * `text` cut to at most `maxChars` characters and `maxBytes` JSON bytes, the cut marked with ASCII "..." (the
 * answer's text may travel in an HTTP header, where many clients garble other characters). Never splits a
 * surrogate pair. One pass, stopping at the cut: a 3 MB string costs no more than a short one.
 */
export function clip(text: string, maxBytes: number, maxChars = Number.POSITIVE_INFINITY): string {
  let used = 0;
  let fitsWhole = true;
  let cut = 0; // the longest prefix that leaves room for "..."
  for (let i = 0; i < text.length; i++) {
    used += jsonBytes(text.charCodeAt(i));
    if (i + 1 > maxChars || used > maxBytes) {
      fitsWhole = false;
      break;
    }
    if (i + 1 <= maxChars - 3 && used <= maxBytes - 3) cut = i + 1;
  }
  if (fitsWhole) return text;
  const high = text.charCodeAt(cut - 1);
  if (cut > 0 && high >= 0xd800 && high <= 0xdbff) cut--;
  return `${text.slice(0, cut)}...`;
}

/** Problems listed in a 400 answer; the rest are counted (ajv reports one per wrong item of a list). */
export const MAX_PROBLEMS_SHOWN = 10;
