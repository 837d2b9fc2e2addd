// Every expression render writes (matchConditions, variables, validations, message expressions, mutations), of the
// committed render and of renders under other policies and Kubernetes versions, parses and type-checks in the
// admission CEL environment (test/native/evaluator/cel.ts), each variable typed by its expression as the API
// server types it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { Policy } from '../../src/core/policy.js';
import { RULES } from '../../src/core/registry.js';
import type { KubeObject } from '../../src/core/types.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { admissionEnvironment, prepare } from './evaluator/cel.js';
import { compilePolicies } from './evaluator/admission.js';
import { DB_POLICY, VM_POLICY } from '../fixtures/children.js';
import { capiPolicy } from '../fixtures/capi.js';

const SHIPPED = 'webhook-config/components/native-policies/admission-policies.yaml';

function policyWith(patch: Partial<Policy>): Policy {
  return { ...structuredClone(DEFAULT_POLICY), ...patch };
}

function everyRule(enforcement: 'deny' | 'warn'): Policy['enforcement'] {
  return Object.fromEntries(RULES.map((r) => [r.id, enforcement])) as Policy['enforcement'];
}

/** The policies and versions render is held to: every knob's values, enforcement both ways, child rules. */
const RENDERS: Array<{ name: string; policy: Policy; k8sVersion: string }> = [
  { name: 'default, 1.36', policy: DEFAULT_POLICY, k8sVersion: '1.36' },
  { name: 'default, 1.34 (no lists library)', policy: DEFAULT_POLICY, k8sVersion: '1.34' },
  {
    name: 'strictOwners, unverifiedRemoval deny, wildcardGrants warn',
    policy: policyWith({ strictOwners: true, unverifiedRemoval: 'deny', wildcardGrants: 'warn' }),
    k8sVersion: '1.36',
  },
  {
    name: 'unverifiedRemoval allow, every rule warn',
    policy: policyWith({ unverifiedRemoval: 'allow', enforcement: everyRule('warn') }),
    k8sVersion: '1.36',
  },
  {
    name: 'unverifiedRemoval warn, wildcardGrants warn, break-glass users, registered users and groups',
    policy: policyWith({
      wildcardGrants: 'warn',
      breakGlass: { users: ['root'], groups: ['system:masters'] },
      owners: {
        ...DEFAULT_POLICY.owners,
        'team/storage': { users: ['bob', 'Bob Smith'], groups: ['storage-admins'], serviceAccounts: [] },
      },
    }),
    k8sVersion: '1.35',
  },
  { name: 'child rules (database example)', policy: DB_POLICY, k8sVersion: '1.36' },
  { name: 'child rules (virtual machine example)', policy: VM_POLICY, k8sVersion: '1.36' },
  { name: 'Cluster API example', policy: capiPolicy(), k8sVersion: '1.36' },
];

interface Spec {
  matchConditions?: Array<{ expression: string }>;
  variables?: Array<{ expression: string }>;
  validations?: Array<{ expression: string; messageExpression?: string }>;
  mutations?: Array<{ jsonPatch: { expression: string } }>;
}

function expressionCount(objects: readonly KubeObject[]): number {
  let n = 0;
  for (const o of objects) {
    const s = (o['spec'] ?? {}) as Spec;
    n += (s.matchConditions?.length ?? 0) + (s.variables?.length ?? 0) + (s.mutations?.length ?? 0);
    for (const v of s.validations ?? []) n += v.messageExpression ? 2 : 1;
  }
  return n;
}

describe('rendered CEL parses and type-checks', () => {
  test('the committed render: every expression of every policy', () => {
    const objects = YAML.parseAllDocuments(readFileSync(SHIPPED, 'utf8'))
      .map((d) => d.toJS() as KubeObject | null)
      .filter((o): o is KubeObject => o !== null);
    const policies = compilePolicies(objects, { typedVariables: true });
    assert.ok(policies.length > 10, 'the committed render has its policies');
    assert.ok(expressionCount(objects) > 1000);
  });

  for (const r of RENDERS) {
    test(`render under ${r.name}`, () => {
      const { objects } = renderNativePolicies(r.policy, { k8sVersion: r.k8sVersion });
      assert.doesNotThrow(() => compilePolicies(objects, { typedVariables: true }));
    });
  }

  test('the check can fail: an unknown function, a wrong overload, an undeclared variable, a two-variable body', () => {
    const env = admissionEnvironment(new Map([['changed', 'list<int>']]));
    for (const bad of [
      'object.metadata.name.reverseAscii()',
      'size(object, 1)',
      'variables.notDeclared == 1',
      "variables.changed.exists(i, i == 'a')",
      "variables.changed.transformList(i, v, v + 'x')",
      'request.userInfo.username + 1 == 2 && variables.changed[0] == "a"',
    ]) {
      assert.equal(env.check(prepare(bad)).valid, false, bad);
    }
    assert.equal(env.check(prepare('variables.changed.transformList(i, v, v > 1, i + v)')).valid, true);
  });
});
