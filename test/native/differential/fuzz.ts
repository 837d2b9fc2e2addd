// The differential fuzzer's two groups, at a size the caller picks: test/fuzz/differential.test.ts runs them at full
// size (fixed seeds and one new seed per run, printed), test/native/differential.test.ts as the unit suite's smoke.
// Generated reviews (every carrier, both stages, hook names and owners at and past their limits, every kind of owner
// and identity, CREATE and UPDATE, deleting objects, stored violations) under generated policies (strictOwners,
// unverifiedRemoval, wildcardGrants, enforcement per rule, extra default hooks) go through the webhook and through
// the rendered native policies evaluated in process; verdict, denial, warnings and the mutated object must agree
// unless a divergence of src/compilers/native/notes.ts covers the review. A failure names its seed and the shrunk review.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parsePolicy } from '../../../src/infrastructure/config/load.js';
import { renderNativePolicies } from '../../../src/compilers/native/render.js';
import { compilePolicies } from '../evaluator/admission.js';
import { CHUNK } from '../../../src/rules/hook-naming/rule.js';
import { caseArb, largeStageArb, policyDocument } from './arbitraries.js';
import { compare, type Subject } from './compare.js';

export const FIXED_SEEDS = [1, 2, 3, 4];
/** Policies per seed, each compiled once (shared programs make a policy's render cost what is new in it). */
const POLICIES = 6;

export interface FuzzSize {
  /** Generated reviews per seed. */
  readonly runs: number;
  /** Large-stage reviews per seed. */
  readonly largeRuns: number;
  /** Seeds besides the fixed ones: a new one per run (HOOKKEEPER_FUZZ_SEED replays one), or none. */
  readonly newSeed: boolean;
}

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

function run(seed: number, runs: number): void {
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
    { seed, numRuns: runs, includeErrorInReport: true },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Diagnostic only (BENCHMARKS.md takes figures from a quiet machine): never an assertion.
  console.log(
    `seed ${seed}: ${runs} reviews, ${covered} covered by a declared divergence, ${Math.round(runs / seconds)} reviews/s`,
  );
}

/** The seeds to run: the fixed ones, then (at full size) HOOKKEEPER_FUZZ_SEED's or a new one, labelled. */
function seeds(size: FuzzSize): { seed: number; label: string }[] {
  const out = FIXED_SEEDS.map((seed) => ({ seed, label: `seed ${seed}` }));
  if (!size.newSeed) return out;
  // HOOKKEEPER_FUZZ_SEED replays a seed a failure printed.
  const given = process.env['HOOKKEEPER_FUZZ_SEED'];
  const seed = given === undefined ? Date.now() % 2 ** 31 : Number(given);
  out.push({ seed, label: `seed ${seed} (${given === undefined ? 'new this run' : 'from HOOKKEEPER_FUZZ_SEED'})` });
  return out;
}

/** Both groups of the fuzzer, at `size`. */
export function fuzzBothEngines(size: FuzzSize): void {
  describe('the webhook and the native policies agree on generated reviews', () => {
    for (const { seed, label } of seeds(size)) test(label, () => run(seed, size.runs));
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
    if (!policy) throw new Error('no generated policy loads');
    const { objects, divergences } = renderNativePolicies(policy, { k8sVersion: '1.36' });
    const subject: Subject = { policy, compiled: compilePolicies(objects), divergences };
    for (const { seed, label } of seeds(size)) {
      test(label, () => {
        fc.assert(
          fc.property(largeStageArb(CHUNK), (input) => {
            const verdict = compare(subject, input);
            if (!verdict.agree) assert.fail(verdict.differences.join('\n').slice(0, 4000));
          }),
          { seed, numRuns: size.largeRuns, includeErrorInReport: true },
        );
      });
    }
  });
}
