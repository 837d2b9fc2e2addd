// Differential fuzzing of the two engines on every unit run: generated reviews (every carrier, both stages, hook
// names and owners at and past their limits, every kind of owner and identity, CREATE and UPDATE, deleting objects,
// stored violations) under generated policies (strictOwners, unverifiedRemoval, wildcardGrants, enforcement per
// rule, extra default hooks) go through the webhook and through the rendered native policies evaluated in process;
// verdict, denial, warnings and the mutated object must agree unless a divergence of src/native/notes.ts covers
// the review. Fixed seeds and one new seed per run, printed; a failure names its seed and the shrunk review.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parsePolicy } from '../../src/config/load.js';
import { renderNativePolicies } from '../../src/native/render.js';
import { compilePolicies } from './evaluator/admission.js';
import { CHUNK } from '../../src/core/cel/naming.js';
import { caseArb, largeStageArb, policyDocument } from './differential/arbitraries.js';
import { compare, type Subject } from './differential/compare.js';

/** Reviews per seed: with the fixed seeds and one random, at least 50,000 per run. */
const RUNS = 10_000;
const FIXED_SEEDS = [1, 2, 3, 4];
/** Policies per seed, each compiled once (shared programs make a policy's render cost what is new in it). */
const POLICIES = 6;

function subjects(seed: number): Subject[] {
  const out: Subject[] = [];
  for (const doc of fc.sample(policyDocument, { seed, numRuns: POLICIES * 2 })) {
    let policy;
    try {
      policy = parsePolicy(JSON.stringify(doc), 'generated-policy.yaml');
    } catch {
      // Knobs a policy file may not combine (config refuses them): not a policy either engine runs.
      continue;
    }
    const { objects, divergences } = renderNativePolicies(policy, { k8sVersion: '1.36' });
    out.push({ policy, compiled: compilePolicies(objects), divergences });
    if (out.length === POLICIES) break;
  }
  return out;
}

function run(seed: number): void {
  const policies = subjects(seed);
  assert.ok(policies.length >= 2, `seed ${seed}: generated policies load`);
  let covered = 0;
  const started = process.hrtime.bigint();
  fc.assert(
    fc.property(caseArb(policies.length), (c) => {
      const verdict = compare(policies[c.policy] as Subject, c.input);
      if (verdict.agree) {
        if (verdict.covered) covered++;
        return;
      }
      assert.fail(
        `${verdict.differences.join('\n')}\nwebhook: ${JSON.stringify(verdict.webhook)}\nnative: ${JSON.stringify(verdict.native)}`,
      );
    }),
    { seed, numRuns: RUNS, includeErrorInReport: true },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Diagnostic only (BENCHMARKS.md takes figures from a quiet machine): never an assertion.
  console.log(
    `seed ${seed}: ${RUNS} reviews, ${covered} covered by a declared divergence, ${Math.round(RUNS / seconds)} reviews/s`,
  );
}

describe('the webhook and the native policies agree on generated reviews', () => {
  for (const seed of FIXED_SEEDS) test(`seed ${seed}`, () => run(seed));
  // HOOKKEEPER_FUZZ_SEED replays a seed a failure printed.
  const given = process.env['HOOKKEEPER_FUZZ_SEED'];
  const seed = given === undefined ? Date.now() % 2 ** 31 : Number(given);
  test(`seed ${seed} (${given === undefined ? 'new this run' : 'from HOOKKEEPER_FUZZ_SEED'})`, () => run(seed));
});

describe('stages past one slice of the native naming check agree too', () => {
  // hook-count off: a stage of thousands of hooks reaches the naming check's later slices. The first generated policy
  // a policy file may hold (config refuses some knobs together; which sample comes first depends on the rules).
  const loaded = fc.sample(policyDocument, { seed: 1, numRuns: 20 }).flatMap((doc) => {
    try {
      const text = JSON.stringify({
        ...doc,
        enforcement: { ...doc.enforcement, 'hook-count': 'off', 'hook-naming': 'deny' },
        maxHooksPerStage: 1000,
      });
      return [parsePolicy(text, 'large-stages.yaml')];
    } catch {
      return [];
    }
  });
  const policy = loaded[0];
  assert.ok(policy, 'a generated policy loads');
  const { objects, divergences } = renderNativePolicies(policy, { k8sVersion: '1.36' });
  const subject: Subject = { policy, compiled: compilePolicies(objects), divergences };
  for (const seed of [...FIXED_SEEDS, Date.now() % 2 ** 31]) {
    test(`seed ${seed}`, () => {
      fc.assert(
        fc.property(largeStageArb(CHUNK), (input) => {
          const verdict = compare(subject, input);
          if (!verdict.agree) assert.fail(verdict.differences.join('\n').slice(0, 4000));
        }),
        { seed, numRuns: 6, includeErrorInReport: true },
      );
    });
  }
});
