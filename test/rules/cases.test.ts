// Every rule's own cases (src/rules/<id>/cases.yaml) hold on both engines: on the webhook's, exactly as `hookkeeper
// test` runs them, and on the rendered native policies in process, whose verdict may differ only where a divergence
// declares it and the case says so. Every admission rule has cases, and every cases file is a rule's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { RULE_IDS } from '../../src/rules/rule-ids.js';
import type { Policy } from '../../src/core/policy.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTestFile } from '../../src/transports/policy-test/load.js';
import { judge, runCase } from '../../src/transports/policy-test/run.js';
import { MAIN_K8S_VERSION } from '../../testing/control-plane/versions.js';
import { compilePolicies } from '../native/evaluator/admission.js';
import { nativeProblems, type NativeSubject } from './native-case.js';
import { ADMISSION_RULES, CASES_FILE, loadRuleCases, RULES_DIR, DEFAULT_POLICY_FILE } from './rule-cases.js';

const ROOT = process.cwd();
const all = await loadRuleCases(ROOT);

describe('the rules’ cases', () => {
  test('every admission rule has cases; every cases file is an admission rule’s', () => {
    const ids: ReadonlySet<string> = new Set(RULE_IDS);
    const problems: string[] = [];
    for (const { rule, file } of all) {
      if (!ids.has(rule)) problems.push(`${file}: ${rule} is not a rule id (src/rules/rule-ids.ts)`);
      else if (!ADMISSION_RULES.has(rule as never))
        problems.push(`${file}: ${rule} does not run at admission, so no case of it can be judged`);
    }
    const have = new Set(all.map((r) => r.rule));
    for (const rule of ADMISSION_RULES)
      if (!have.has(rule)) problems.push(`${join(RULES_DIR, rule, CASES_FILE)} is missing: ${rule} runs at admission`);
    assert.deepEqual(problems, []);
  });

  test('the default policy the cases name is the embedded default', () => {
    const file = DEFAULT_POLICY_FILE;
    assert.deepEqual(parsePolicy(readFileSync(join(ROOT, file), 'utf8'), file), DEFAULT_POLICY);
  });

  test('`native: differs` is a rule case’s word only: `hookkeeper test` refuses it as an unknown key', async () => {
    const file = join(RULES_DIR, 'child-finalizer', CASES_FILE);
    const asUsers = await loadTestFile(file, ROOT, new Map());
    assert.ok(
      asUsers.problems.some((p) => p.message.includes('unknown key "native"')),
      JSON.stringify(asUsers.problems),
    );
  });

  // Rendered and compiled once per policy file: most rules share the default.
  const natives = new Map<Policy, NativeSubject>();
  const nativeOf = (policy: Policy): NativeSubject => {
    let subject = natives.get(policy);
    if (!subject) {
      const { objects, divergences } = renderNativePolicies(policy, { k8sVersion: MAIN_K8S_VERSION });
      subject = { policy, compiled: compilePolicies(objects), divergences };
      natives.set(policy, subject);
    }
    return subject;
  };

  for (const { rule, file, loaded } of all) {
    describe(rule, () => {
      test(`${file} loads`, () => {
        assert.deepEqual(loaded.problems, []);
        assert.ok(loaded.cases.length > 0);
      });
      const policy = loaded.policy;
      if (!policy) return;
      for (const c of loaded.cases) {
        test(c.name, (t) => {
          // (a) As `hookkeeper test` runs it.
          const result = runCase(c, policy);
          const failures = result.failures.map((f) => `webhook: ${f.message}`);
          // (b) Through the native policies.
          const { problems, covered } = nativeProblems(nativeOf(policy), c, judge(c, policy));
          for (const note of covered) t.diagnostic(`native mode differs, as declared: ${note}`);
          assert.deepEqual([...failures, ...problems], [], `${file}:${c.line} ${c.name}`);
        });
      }
    });
  }
});
