// Each rule declares whether its CEL reads a list carrier's index of hooks by name (NativeForm.readsNameIndex), and
// src/compilers/native/notes.ts declares the divergence from that. Here the declarations are held to the CEL the rules build:
// under the embedded policy and generated ones, a rule whose expressions (or the variables they reach) name a stage's
// index declares it, and one that declares it reads it under some policy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { celCarrier } from '../../src/core/cel/carrier.js';
import { CARRIERS } from '../../src/core/carriers.js';
import type { Policy } from '../../src/core/policy.js';
import { RULES } from '../../src/core/registry.js';
import { reachable } from '../../src/compilers/native/validating.js';
import { policyDocument } from './differential/arbitraries.js';

/** A Machine's list carrier and a template's: some rules judge only one of them. */
const VIEWS = [true, false].flatMap((live) => {
  const carrier = CARRIERS.find((c) => c.format === 'list' && c.live === live);
  return carrier ? [celCarrier(carrier)] : [];
});

/** The rules whose rendered CEL names a stage's name index under `policy`. */
function observed(policy: Policy): Set<string> {
  const out = new Set<string>();
  for (const rule of RULES) {
    const native = rule.native;
    if (!native || !('validating' in native)) continue;
    const reads = VIEWS.some((view) => {
      const indices = view.stages.flatMap((s) => [s.index, s.oldIndex]);
      const { variables, validations } = native.validating({ policy, view, k8sMinor: 36 });
      const expressions = validations.flatMap((v) => [v.expression, v.messageExpression]);
      const all = new Map([...view.variables, ...variables].map((v) => [v.name, v.expression]));
      const read = [...expressions, ...reachable(all, expressions).map((v) => `variables.${v.name}`)];
      return read.some((e) => indices.some((i) => e.includes(i)));
    });
    if (reads) out.add(rule.id);
  }
  return out;
}

function generatedPolicies(): Policy[] {
  return fc.sample(policyDocument, { seed: 7, numRuns: 30 }).flatMap((doc) => {
    try {
      return [parsePolicy(JSON.stringify(doc), 'generated-policy.yaml')];
    } catch {
      return [];
    }
  });
}

test('each rule declares whether its CEL reads the name index, as its rendered CEL does', () => {
  const declared = new Set<string>(
    RULES.filter((r) => r.native && 'validating' in r.native && r.native.readsNameIndex).map((r) => r.id),
  );
  const policies = [DEFAULT_POLICY, ...generatedPolicies()];
  assert.ok(policies.length > 10, 'generated policies load');
  const seen = new Set<string>();
  for (const policy of policies) {
    for (const id of observed(policy)) {
      assert.ok(declared.has(id), `${id} reads a stage's name index but declares readsNameIndex: false`);
      seen.add(id);
    }
  }
  assert.deepEqual(
    [...declared].filter((id) => !seen.has(id)),
    [],
    'declared readsNameIndex but never reads it',
  );
});
