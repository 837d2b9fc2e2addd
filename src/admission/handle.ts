// The one seam every transport calls: ReviewInput in, AdmissionResult out, for each webhook. No HTTP here.
import { evaluate, mutate, type EvaluateOptions } from '../core/engine.js';
import type { Policy } from '../core/policy.js';
import type { Decision, Mutation, ReviewInput, Violation } from '../core/types.js';
import { type AdmissionResult, denied, patched } from './response.js';

export type Webhook = 'validate' | 'mutate' | 'review';

export interface Outcome {
  result: AdmissionResult;
  decision: Decision;
  mutation: Mutation;
}

const NO_MUTATION: Mutation = { mutated: null, patch: [], changes: [] };

/** The denial text a client sees after "admission webhook ... denied the request: ". */
export function denialMessage(denials: readonly Violation[]): string {
  return denials.map((v) => v.message).join('; ');
}

function warningsOf(decision: Decision): string[] {
  const out: string[] = [];
  for (const n of decision.notices) out.push(n.warning);
  for (const v of decision.warnings) out.push(`${v.rule}: ${v.message}`);
  return out;
}

/** auditAnnotations keys must be unique; several notices of one kind are numbered. */
function auditAnnotationsOf(decision: Decision): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of decision.notices) {
    let key = n.audit.key;
    for (let i = 2; Object.hasOwn(out, key); i++) key = `${n.audit.key}-${i}`;
    out[key] = n.audit.value;
  }
  return out;
}

function fromDecision(decision: Decision, mutation: Mutation): AdmissionResult {
  const extras = { warnings: warningsOf(decision), auditAnnotations: auditAnnotationsOf(decision) };
  if (!decision.allowed) return denied(denialMessage(decision.denials), extras);
  return patched(mutation.patch, extras);
}

export function handle(webhook: Webhook, policy: Policy, input: ReviewInput, options: EvaluateOptions = {}): Outcome {
  if (webhook === 'validate') {
    const decision = evaluate(policy, input, options);
    return { result: fromDecision(decision, NO_MUTATION), decision, mutation: NO_MUTATION };
  }
  const mutation = mutate(policy, input, options);
  if (webhook === 'mutate') {
    const decision: Decision = { allowed: true, denials: [], warnings: [], notices: [] };
    return { result: fromDecision(decision, mutation), decision, mutation };
  }
  // review: what the API server would end with, mutating then validating the mutated object.
  const decision = evaluate(policy, mutation.mutated ? { ...input, object: mutation.mutated } : input, options);
  return { result: fromDecision(decision, mutation), decision, mutation };
}
