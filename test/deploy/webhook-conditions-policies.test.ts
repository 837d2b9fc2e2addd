// The derived validating conditions (src/core/cel/webhook-conditions.ts) over the whole policy space: for generated
// policies (every rule's enforcement, strictOwners, unverifiedRemoval, wildcardGrants, break-glass, default hooks)
// and generated CREATEs and UPDATEs of every carrier by every kind of identity, with the RBAC facts the transport
// gathers, a request the condition skips gets from the webhook an allow with no patch and no warning (an UPDATE: no
// warning beyond what writing the stored object back gets). webhook-conditions.test.ts does the same over recorded
// reviews under a few fixed policies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { handle } from '../../src/admission/handle.js';
import type { AdmissionResult } from '../../src/admission/response.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import {
  mutatingWebhookCondition,
  validatingCreateCondition,
  validatingUpdateCondition,
} from '../../src/core/cel/webhook-conditions.js';
import type { Policy } from '../../src/core/policy.js';
import type { ReviewInput } from '../../src/core/types.js';
import { caseArb, policyDocument } from '../native/differential/arbitraries.js';
import { ownership } from '../native/differential/compare.js';
import { conditionHolds } from '../native/evaluator/admission.js';

/** Each rule's enforcement drawn evenly (the differential's draw favours deny), so every combination comes up. */
const documentArb = fc
  .tuple(policyDocument, fc.array(fc.constantFrom('deny', 'warn', 'off'), { minLength: 32, maxLength: 32 }))
  .map(([doc, draws]) => ({
    ...doc,
    enforcement: Object.fromEntries(Object.keys(doc.enforcement).map((id, i) => [id, draws[i] ?? 'deny'])),
  }));

const policies = new Map<string, Policy | null>();
function load(doc: unknown): Policy | null {
  const text = JSON.stringify(doc);
  let policy = policies.get(text);
  if (policy === undefined) {
    try {
      policy = parsePolicy(text, 'generated-policy.yaml');
    } catch {
      // Knobs a policy file may not combine (config refuses them): not a policy the webhook runs.
      policy = null;
    }
    policies.set(text, policy);
  }
  return policy;
}

const validate = (policy: Policy, input: ReviewInput): AdmissionResult =>
  handle('validate', policy, { ...input, context: { ...input.context, ownership: ownership(policy, input) } }).result;

const counts = { creates: 0, updates: 0 };

/** A failure message when the validating webhook skips `input` but would have said something of it. */
function skippedButJudged(policy: Policy, input: ReviewInput): string | undefined {
  const create = input.operation === 'CREATE';
  const condition = create ? validatingCreateCondition(policy) : validatingUpdateCondition(policy);
  if (conditionHolds(condition.expression, input)) return undefined;
  counts[create ? 'creates' : 'updates']++;
  const got = validate(policy, input);
  if (!got.allowed) return `skipped, but the webhook denies it: ${got.status?.message ?? ''}`;
  if ((got.patch?.length ?? 0) > 0) return 'skipped, but the webhook patches it';
  const stored = create ? undefined : validate(policy, { ...input, object: input.oldObject });
  const warned = new Set(stored?.warnings ?? []);
  const extra = got.warnings.filter((w) => !warned.has(w));
  if (extra.length > 0) return `skipped, but the webhook warns: ${JSON.stringify(extra)}`;
  const audited = Object.entries(got.auditAnnotations).filter(([k, v]) => stored?.auditAnnotations[k] !== v);
  if (audited.length > 0) return `skipped, but the webhook audits it: ${JSON.stringify(audited)}`;
  return undefined;
}

test('skipped => allowed, unpatched, unwarned: every policy knob, every carrier, CREATE and UPDATE', () => {
  fc.assert(
    fc.property(documentArb, fc.array(caseArb(1), { minLength: 25, maxLength: 25 }), (doc, cases) => {
      const policy = load(doc);
      if (!policy) return;
      for (const { input } of cases) {
        // What the validating webhook is sent: the object as the mutating webhook left it.
        const mutated = conditionHolds(mutatingWebhookCondition(policy).expression, input)
          ? handle('mutate', policy, input).mutation.mutated
          : null;
        const sent: ReviewInput = mutated ? { ...input, object: mutated } : input;
        const failure = skippedButJudged(policy, sent);
        if (failure !== undefined)
          assert.fail(`${failure}\npolicy: ${JSON.stringify(doc)}\nreview: ${JSON.stringify(sent).slice(0, 3000)}`);
      }
    }),
    { numRuns: 300, includeErrorInReport: true },
  );
  // Not vacuous: the conditions skip CREATEs and UPDATEs.
  assert.ok(counts.creates > 10 && counts.updates > 50, `only ${JSON.stringify(counts)} skipped`);
});
