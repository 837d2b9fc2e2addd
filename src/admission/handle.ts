// The one seam every transport calls: ReviewInput in, AdmissionResult out, for each webhook. No HTTP here.
import { evaluate, mutate, type EvaluateOptions } from '../core/engine.js';
import type { Policy } from '../core/policy.js';
import type { Decision, Mutation, ReviewInput, Violation } from '../core/types.js';
import {
  clip,
  MAX_AUDIT_ANNOTATIONS,
  MAX_AUDIT_VALUE_BYTES,
  MAX_DENIALS_SHOWN,
  MAX_VIOLATION_BYTES,
  MAX_WARNINGS,
  OMITTED_AUDIT_KEY,
} from './limits.js';
import { type AdmissionResult, denied, patched } from './response.js';

/** The two webhooks hookkeeper serves. */
export type Webhook = 'validate' | 'mutate';

/** What handle() does: one webhook's part, or both as the API server chains them (review, validate, test). */
export type Handling = Webhook | 'mutate-then-validate';

/** What handle() made of one review: the response to send, the decision and the mutation behind it. */
export interface HandledReview {
  result: AdmissionResult;
  decision: Decision;
  mutation: Mutation;
}

const NO_MUTATION: Mutation = { mutated: null, patch: [], changes: [] };

/**
 * The denial text a client sees after "admission webhook ... denied the request: ": the first few violations,
 * each cut to a bounded length, then how many more there are (the server logs them all at debug level).
 */
export function denialMessage(denials: readonly Violation[]): string {
  const shown = denials.slice(0, MAX_DENIALS_SHOWN).map((v) => clip(v.message, MAX_VIOLATION_BYTES));
  const more = denials.length - shown.length;
  if (more > 0) shown.push(`and ${more} more violation${more === 1 ? '' : 's'}`);
  return shown.join('; ');
}

/** Notices' warnings, then warned violations: at most MAX_WARNINGS, the last counting the rest. */
function warningsOf(decision: Decision): string[] {
  // Loops, not filter(): a request may remove 100,000 hooks, each with a notice.
  let warned = 0;
  for (const n of decision.notices) if (n.warning !== undefined) warned++;
  const total = warned + decision.warnings.length;
  const room = total > MAX_WARNINGS ? MAX_WARNINGS - 1 : total;
  const out: string[] = [];
  for (const n of decision.notices) {
    if (out.length === room) break;
    if (n.warning !== undefined) out.push(n.warning);
  }
  for (const v of decision.warnings.slice(0, room - out.length)) out.push(`${v.rule}: ${v.message}`);
  if (total > room) out.push(`and ${total - room} more warnings`);
  return out;
}

/**
 * auditAnnotations keys must be unique; several notices of one kind are numbered (key, key-2, key-3...). At most
 * MAX_AUDIT_ANNOTATIONS entries: past that, the last one counts the omitted entries by key.
 */
function auditAnnotationsOf(decision: Decision): Record<string, string> {
  const out: Record<string, string> = {};
  const room = decision.notices.length > MAX_AUDIT_ANNOTATIONS ? MAX_AUDIT_ANNOTATIONS - 1 : decision.notices.length;
  const seen = new Map<string, number>();
  decision.notices.forEach((n, i) => {
    const count = (seen.get(n.audit.key) ?? 0) + 1;
    seen.set(n.audit.key, count);
    if (i < room)
      out[count === 1 ? n.audit.key : `${n.audit.key}-${count}`] = clip(n.audit.value, MAX_AUDIT_VALUE_BYTES);
  });
  if (room < decision.notices.length) {
    const omitted: Record<string, number> = {};
    for (const [key, count] of seen) omitted[key] = count;
    decision.notices.slice(0, room).forEach((n) => {
      omitted[n.audit.key] = (omitted[n.audit.key] ?? 0) - 1;
    });
    out[OMITTED_AUDIT_KEY] = JSON.stringify({ omitted: decision.notices.length - room, byKey: omitted });
  }
  return out;
}

function fromDecision(decision: Decision, mutation: Mutation): AdmissionResult {
  const extras = { warnings: warningsOf(decision), auditAnnotations: auditAnnotationsOf(decision) };
  if (!decision.allowed) return denied(denialMessage(decision.denials), extras);
  return patched(mutation.patch, extras);
}

export function handle(
  handling: Handling,
  policy: Policy,
  input: ReviewInput,
  options: EvaluateOptions = {},
): HandledReview {
  if (handling === 'validate') {
    const decision = evaluate(policy, input, options);
    return { result: fromDecision(decision, NO_MUTATION), decision, mutation: NO_MUTATION };
  }
  const mutation = mutate(policy, input, options);
  if (handling === 'mutate') {
    const decision: Decision = { allowed: true, denials: [], warnings: [], notices: [] };
    return { result: fromDecision(decision, mutation), decision, mutation };
  }
  // What the API server would end with: mutating, then validating the mutated object.
  const decision = evaluate(policy, mutation.mutated ? { ...input, object: mutation.mutated } : input, options);
  return { result: fromDecision(decision, mutation), decision, mutation };
}
