// The reviews the differential fuzzer found a difference on (test/fixtures/native-differential-seeds.json), replayed:
// the webhook and the rendered native policies in process agree on each, or a declared divergence covers it. Built
// through reviewInput, so the end-to-end corpus, which records the reviews of test/core, replays them through a
// real API server in every admission mode.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { compilePolicies } from '../native/evaluator/admission.js';
import { compare, type Subject } from '../native/differential/compare.js';
import { reviewInput } from '../fixtures/input.js';
import { machine } from '../fixtures/openshift.js';

interface Hooks {
  preDrain?: Array<{ name: string; owner: string }>;
  finalizers?: string[];
}
interface Seed {
  found: string;
  operation: 'CREATE' | 'UPDATE';
  user: { username: string; groups: string[] };
  deleting?: boolean;
  oldRole?: 'master' | 'arbiter' | 'worker' | 'infra';
  object: Hooks;
  oldObject?: Hooks;
}

const SEEDS = (
  JSON.parse(readFileSync(new URL('../fixtures/native-differential-seeds.json', import.meta.url), 'utf8')) as {
    cases: Seed[];
  }
).cases;
const DELETED_AT = '2026-11-27T10:00:00Z';

describe('seed cases of the differential fuzzer', () => {
  const { objects, divergences } = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: '1.36' });
  const subject: Subject = { policy: DEFAULT_POLICY, compiled: compilePolicies(objects), divergences };
  for (const seed of SEEDS) {
    test(seed.found, () => {
      const at = (hooks: Hooks, role?: Seed['oldRole']) =>
        machine({
          ...(hooks.preDrain ? { preDrain: hooks.preDrain } : {}),
          ...(hooks.finalizers ? { finalizers: hooks.finalizers } : {}),
          ...(seed.deleting ? { deletionTimestamp: DELETED_AT } : {}),
          ...(role ? { role } : {}),
        });
      const input = reviewInput({
        operation: seed.operation,
        object: at(seed.object),
        ...(seed.oldObject ? { oldObject: at(seed.oldObject, seed.oldRole) } : {}),
        user: seed.user,
      });
      const verdict = compare(subject, input);
      assert.ok(verdict.agree, verdict.agree ? '' : verdict.differences.join('\n'));
    });
  }
});
