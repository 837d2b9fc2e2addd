// One review through both engines: the webhook (src/admission's handle, as `serve` runs it: mutate, then validate
// the mutated object, with the RBAC facts and the migration twin the transport would gather) and the rendered native policies in process.
// They must agree on verdict, denial, warnings and the object after mutation, unless a declared divergence of
// src/compilers/native/notes.ts covers the review.
import { isDeepStrictEqual } from 'node:util';
import { handle } from '../../../src/admission/handle.js';
import { clip, MAX_VIOLATION_BYTES } from '../../../src/admission/limits.js';
import { ownersToCheck } from '../../../src/rules/owner-only-removal/owners-to-check.js';
import type { Policy } from '../../../src/core/policy.js';
import {
  mutatingWebhookCondition,
  validatingCreateCondition,
  validatingUpdateCondition,
} from '../../../src/core/cel/webhook-conditions.js';
import { ALLOWED } from '../../../src/core/engine.js';
import type { Decision, Mutation, Ownership, ReviewInput } from '../../../src/core/types.js';
import { NOT_FINISHING_DELETION } from '../../../src/compilers/native/match.js';
import { covering, type Divergence } from '../../../src/compilers/native/notes.js';
import { admit, conditionHolds, type CompiledPolicies, type NativeVerdict } from '../evaluator/admission.js';
import { accessOf, authorize, OWNERS } from './arbitraries.js';

export interface Subject {
  policy: Policy;
  compiled: CompiledPolicies;
  divergences: readonly Divergence[];
}

/** The RBAC facts the webhook's transport gathers: the grants it indexed, and one review per owner it asks about. */
export function ownership(policy: Policy, input: ReviewInput): Ownership {
  const granted = new Set<string>([OWNERS.granted]);
  const access: Ownership['access'] = Object.fromEntries(
    ownersToCheck(policy, input, granted).map((o) => [o, accessOf(input.userInfo.username, o)]),
  );
  return { granted, access, grantsKnown: true };
}

const NOTHING: Mutation = { mutated: null, patch: [], changes: [] };

/**
 * The webhook as the API server calls it: the mutating webhook when its registration's matchCondition holds (for
 * this policy, as `webhook-config render` writes it), then the validating one on the mutated object, with the RBAC
 * facts its transport gathers for that object, unless the registration's conditions (not-finishing-deletion, and an
 * UPDATE that changes nothing a rule reads, a CREATE that carries nothing one reads) leave the request out. Also the review as validated, which the
 * divergences' predicates are asked about.
 */
function webhook(
  policy: Policy,
  input: ReviewInput,
): { decision: Decision; mutation: Mutation; validated: ReviewInput } {
  const mutation = conditionHolds(mutatingWebhookCondition(policy).expression, input)
    ? handle('mutate', policy, input).mutation
    : NOTHING;
  const mutated = mutation.mutated ? { ...input, object: mutation.mutated } : input;
  // The twin of a migrated Machine, if the case has one, as the transport gathers it beside the RBAC facts.
  const validated: ReviewInput = { ...mutated, context: { ...input.context, ownership: ownership(policy, mutated) } };
  const sent =
    conditionHolds(NOT_FINISHING_DELETION.expression, validated) &&
    conditionHolds(validatingUpdateCondition(policy).expression, validated) &&
    conditionHolds(validatingCreateCondition(policy).expression, validated);
  const decision = sent ? handle('validate', policy, validated).decision : ALLOWED;
  return { decision, mutation, validated };
}

export type Verdict =
  { agree: true; covered: boolean } | { agree: false; differences: string[]; webhook: unknown; native: NativeVerdict };

export function compare(subject: Subject, input: ReviewInput): Verdict {
  const { policy } = subject;
  const w = webhook(policy, input);
  const webhookInput = w.validated;
  const native = admit(subject.compiled, input, { authorize: authorize(input.userInfo.username) });
  const decidedBy = [
    ...new Set([
      ...w.decision.denials.map((d) => d.rule),
      ...w.decision.warnings.map((d) => d.rule),
      ...w.decision.notices.map((d) => d.rule),
      ...(native.denial?.rule ? [native.denial.rule] : []),
      ...native.warnings.flatMap((x) => (x.rule ? [x.rule] : [])),
    ]),
  ];
  // With the RBAC facts the webhook had: a divergence about owners RBAC may protect then names the granted ones.
  if (covering(subject.divergences, decidedBy, webhookInput).length > 0) return { agree: true, covered: true };

  // A divergence of words covering the review ('messages' concerns every rule's words): the verdict and the object
  // must still agree.
  const wordsDiffer = subject.divergences.some(
    (d) =>
      d.wordsDiffer !== undefined &&
      (d.rule === 'messages' || decidedBy.includes(d.rule)) &&
      d.wordsDiffer(webhookInput),
  );
  const differences: string[] = [];
  if (w.decision.allowed !== native.allowed)
    differences.push(
      `verdict: webhook ${w.decision.allowed ? 'allows' : 'denies'}, native ${native.allowed ? 'allows' : 'denies'}`,
    );
  if (!w.decision.allowed && native.denial && !wordsDiffer) {
    // The API server reports the first failing validation of the denying policy; the webhook joins every
    // violation, each cut as its response cuts it: the one native mode names must be one of them, word for word.
    const message = native.denial.message;
    const shown = w.decision.denials.map((d) => clip(d.message, MAX_VIOLATION_BYTES));
    if (!shown.includes(message))
      differences.push(
        `denial: native says ${JSON.stringify(message)} (${native.denial.rule ?? 'no rule'}), the webhook ${JSON.stringify(shown)}`,
      );
  }
  if (w.decision.allowed && native.allowed && !wordsDiffer) {
    const webhookWarnings = new Set([
      ...w.decision.notices.flatMap((n) => (n.warning === undefined ? [] : [n.warning])),
      ...w.decision.warnings.map((v) => `${v.rule}: ${v.message}`),
    ]);
    for (const x of native.warnings)
      if (!webhookWarnings.has(x.message)) differences.push(`warning only native gives: ${JSON.stringify(x.message)}`);
    if (webhookWarnings.size > 0 && native.warnings.length === 0)
      differences.push(`warnings only the webhook gives: ${JSON.stringify([...webhookWarnings])}`);
  }
  if (w.decision.allowed && native.allowed) {
    const after = w.mutation.mutated ?? input.object;
    if (!isDeepStrictEqual(after, native.object))
      differences.push(
        `object after mutation: webhook ${JSON.stringify(after)}, native ${JSON.stringify(native.object)}`,
      );
  }
  return differences.length === 0
    ? { agree: true, covered: false }
    : { agree: false, differences, webhook: w.decision, native };
}
