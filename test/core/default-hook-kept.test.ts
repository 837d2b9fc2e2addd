// Rule default-hook-kept: a request a default-hook rule selects (a CREATE, the UPDATE that makes a Machine match)
// must end admission with the rule's hook; a later mutating plugin that removes it gets the request refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate, mutate } from '../../src/core/engine.js';
import type { Policy } from '../../src/core/policy.js';
import type { Enforcement, KubeObject } from '../../src/core/types.js';
import { ETCD, machine, USERS } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';

const create = (obj: KubeObject) => reviewInput({ operation: 'CREATE', object: obj, user: USERS.machineApi });
const update = (obj: KubeObject, oldObject: KubeObject) =>
  reviewInput({ operation: 'UPDATE', object: obj, oldObject, user: USERS.machineApi });

const STRIPPED =
  'spec.lifecycleHooks.preDrain: Required value: default hook "EtcdQuorumOperator" owned by "clusteroperator/etcd" is missing at the end of mutating admission (policy rule "etcd-quorum-protection"); a mutating webhook or admission policy removed it';

const kept = (policy: Policy, input: ReturnType<typeof create>) => {
  const d = evaluate(policy, input);
  return {
    denied: d.denials.filter((v) => v.rule === 'default-hook-kept').map((v) => v.message),
    warned: d.warnings.filter((v) => v.rule === 'default-hook-kept').map((v) => v.message),
  };
};

const withEnforcement = (rules: Partial<Record<string, Enforcement>>): Policy => ({
  ...DEFAULT_POLICY,
  enforcement: { ...DEFAULT_POLICY.enforcement, ...rules },
});

describe('default-hook-kept', () => {
  test('a control-plane CREATE that ends admission without its etcd hook is refused, in the words of both engines', () => {
    const d = evaluate(DEFAULT_POLICY, create(machine({ role: 'master' })));
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.denials.map((v) => [v.rule, v.path, v.message, v.key]),
      [['default-hook-kept', 'spec.lifecycleHooks.preDrain', STRIPPED, 'default-kept:etcd-quorum-protection']],
    );
  });

  test('the same CREATE as the API server runs it (mutate, then validate the mutated object) is allowed', () => {
    const review = handle('mutate-then-validate', DEFAULT_POLICY, create(machine({ role: 'master' })));
    assert.equal(review.decision.allowed, true);
    assert.deepEqual(review.result.patch, [{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] }]);
  });

  test('a hook re-owned by a later mutation counts as removed: its owner is what protects it', () => {
    const reowned = machine({ role: 'master', preDrain: [{ name: ETCD.name, owner: 'someone-else' }] });
    assert.deepEqual(kept(DEFAULT_POLICY, create(reowned)).denied, [STRIPPED]);
    assert.deepEqual(kept(DEFAULT_POLICY, create(machine({ role: 'arbiter', preDrain: [ETCD] }))).denied, []);
  });

  test('a worker CREATE, hooks or none, is not its concern', () => {
    assert.deepEqual(kept(DEFAULT_POLICY, create(machine({ role: 'worker' }))), { denied: [], warned: [] });
    const other = { name: 'example.com/DrainGate', owner: 'drain-team' };
    assert.deepEqual(kept(DEFAULT_POLICY, create(machine({ role: 'worker', preDrain: [other] }))), {
      denied: [],
      warned: [],
    });
  });

  test('the UPDATE that relabels a worker control-plane must end with the hook; the mutated one passes', () => {
    const relabel = update(machine({ role: 'master' }), machine({ role: 'worker' }));
    assert.deepEqual(kept(DEFAULT_POLICY, relabel).denied, [STRIPPED]);
    const mutated = mutate(DEFAULT_POLICY, relabel).mutated;
    assert.ok(mutated);
    assert.deepEqual(kept(DEFAULT_POLICY, { ...relabel, object: mutated }).denied, []);
  });

  test('an UPDATE of a Machine that matched all along is missing-default-hook’s (a warning), not this rule’s', () => {
    const d = evaluate(DEFAULT_POLICY, update(machine({ role: 'master' }), machine({ role: 'master' })));
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.warnings.map((v) => v.rule),
      ['missing-default-hook'],
    );
    // Nor the update in which its owner removes it: owner-only-removal's to judge.
    const removed = update(machine({ role: 'master' }), machine({ role: 'master', preDrain: [ETCD] }));
    assert.deepEqual(kept(DEFAULT_POLICY, removed).denied, []);
  });

  test('a deleting Machine relabelled control-plane gets no hook (the deletion freeze), so none is required', () => {
    const deleting = { deletionTimestamp: '2026-11-21T10:00:00Z' };
    const relabel = update(machine({ role: 'master', ...deleting }), machine({ role: 'worker', ...deleting }));
    assert.deepEqual(kept(DEFAULT_POLICY, relabel).denied, []);
  });

  test('default-hooks off (no hook is added) or default-hook-kept off: nothing said; warn: warned', () => {
    const input = create(machine({ role: 'master' }));
    assert.deepEqual(kept(withEnforcement({ 'default-hooks': 'off' }), input), { denied: [], warned: [] });
    assert.deepEqual(kept(withEnforcement({ 'default-hook-kept': 'off' }), input), { denied: [], warned: [] });
    assert.deepEqual(kept(withEnforcement({ 'default-hook-kept': 'warn' }), input), { denied: [], warned: [STRIPPED] });
  });

  test('a rule that adds its hook on UPDATE only does not require it on CREATE, and the reverse', () => {
    const only = (operations: Array<'CREATE' | 'UPDATE'>): Policy => ({
      ...DEFAULT_POLICY,
      defaultHooks: DEFAULT_POLICY.defaultHooks.map((r) => ({ ...r, operations })),
    });
    assert.deepEqual(kept(only(['UPDATE']), create(machine({ role: 'master' }))).denied, []);
    const relabel = update(machine({ role: 'master' }), machine({ role: 'worker' }));
    assert.deepEqual(kept(only(['CREATE']), relabel).denied, []);
    assert.deepEqual(kept(only(['UPDATE']), relabel).denied, [STRIPPED]);
  });
});
