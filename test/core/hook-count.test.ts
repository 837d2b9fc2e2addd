// Rule hook-count: at most policy.maxHooksPerStage hooks per stage, so native mode's CEL stays inside its budget; a
// stored object already over the bound may still lose hooks (or keep its count), never gain one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/config/defaults.js';
import { parsePolicy } from '../../src/config/load.js';
import { evaluate } from '../../src/core/engine.js';
import { AppError } from '../../src/errors.js';
import { capiInput, capiMachine } from '../fixtures/capi.js';
import { machine, USERS, type HookSpec } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';

const hooks = (n: number, prefix = 'hook-'): HookSpec[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, owner: 'team-a' }));
const worker = (preDrain: HookSpec[], preTerminate: HookSpec[] = []) =>
  machine({ role: 'worker', preDrain, preTerminate });
const create = (obj: Record<string, unknown>) =>
  reviewInput({ operation: 'CREATE', object: obj, user: USERS.machineApi });
const update = (obj: Record<string, unknown>, oldObject: Record<string, unknown>) =>
  reviewInput({ operation: 'UPDATE', object: obj, oldObject, user: USERS.machineApi });
const rules = (violations: ReadonlyArray<{ rule: string }>) => violations.map((v) => v.rule);

describe('hook-count', () => {
  test('the default bound is 64 hooks per stage: 64 in each stage pass, 65 in one are refused in its words', () => {
    assert.equal(DEFAULT_POLICY.maxHooksPerStage, 64);
    assert.equal(evaluate(DEFAULT_POLICY, create(worker(hooks(64), hooks(64, 'term-')))).allowed, true);
    const d = evaluate(DEFAULT_POLICY, create(worker(hooks(65))));
    assert.deepEqual(
      d.denials.map((v) => [v.rule, v.path, v.message]),
      [
        [
          'hook-count',
          'spec.lifecycleHooks.preDrain',
          'spec.lifecycleHooks.preDrain: Too many: 65: must have at most 64 items (policy maxHooksPerStage)',
        ],
      ],
    );
  });

  test('an UPDATE may not grow a stage past the bound, nor add to a stage already over it', () => {
    assert.deepEqual(rules(evaluate(DEFAULT_POLICY, update(worker(hooks(65)), worker(hooks(64)))).denials), [
      'hook-count',
    ]);
    assert.deepEqual(rules(evaluate(DEFAULT_POLICY, update(worker(hooks(70)), worker(hooks(69)))).denials), [
      'hook-count',
    ]);
  });

  test('a stored object over the bound may lose hooks or keep its count (warned), as the API server ratchets', () => {
    for (const [now, before] of [
      [69, 70],
      [70, 70],
    ] as const) {
      const d = evaluate(DEFAULT_POLICY, update(worker(hooks(now)), worker(hooks(before))));
      assert.equal(d.allowed, true, `${before} -> ${now}`);
      assert.deepEqual(rules(d.warnings), ['hook-count'], `${before} -> ${now}`);
    }
    // Under the bound again: nothing to say about the count.
    const back = evaluate(DEFAULT_POLICY, update(worker(hooks(64)), worker(hooks(70))));
    assert.deepEqual([back.allowed, rules(back.warnings)], [true, []]);
  });

  test('the audit reports a stored object over the bound', () => {
    const d = evaluate(DEFAULT_POLICY, { ...create(worker(hooks(65))), source: 'audit' });
    assert.deepEqual(rules(d.denials), ['hook-count']);
  });

  test('Cluster API: hook annotations count per stage prefix', () => {
    const annotations = (n: number): Record<string, string> =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`pre-drain.delete.hook.machine.cluster.x-k8s.io/hook-${i}`, 'team-a']),
      );
    const at = evaluate(
      DEFAULT_POLICY,
      capiInput({ operation: 'CREATE', object: capiMachine({ annotations: annotations(64) }) }),
    );
    assert.deepEqual(rules(at.denials), []);
    const over = evaluate(
      DEFAULT_POLICY,
      capiInput({ operation: 'CREATE', object: capiMachine({ annotations: annotations(65) }) }),
    );
    assert.deepEqual(rules(over.denials), ['hook-count']);
  });

  test('the policy sets the bound (1 to 1000, whole numbers); a file without it keeps 64', () => {
    const policy = (extra: string) =>
      parsePolicy(`apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n${extra}`, 'p.yaml');
    assert.equal(policy('').maxHooksPerStage, 64);
    assert.equal(policy('maxHooksPerStage: 2\n').maxHooksPerStage, 2);
    assert.deepEqual(rules(evaluate(policy('maxHooksPerStage: 2\n'), create(worker(hooks(3)))).denials), [
      'hook-count',
    ]);
    for (const bad of ['0', '1001', '2.5', '"64"'])
      assert.throws(
        () => policy(`maxHooksPerStage: ${bad}\n`),
        (err: unknown) =>
          err instanceof AppError &&
          JSON.stringify((err as AppError & { problems: unknown }).problems).includes('"path":"maxHooksPerStage"'),
        bad,
      );
  });
});
