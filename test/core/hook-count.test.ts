// Rule hook-count: at most policy.maxHooksPerStage hooks per stage, so native mode's CEL stays inside its budget; a
// stored object already over the bound may still lose hooks (or keep its count), never gain one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { evaluate, mutate } from '../../src/core/engine.js';
import { POLICY_OWNER_HOOKS_PER_STAGE } from '../../src/core/policy.js';
import { AppError } from '../../src/errors.js';
import { capiInput, capiMachine } from '../fixtures/capi.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';
import type { UserInfo } from '../../src/core/types.js';

const hooks = (n: number, prefix = 'hook-', owner = 'team-a'): HookSpec[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, owner }));
const worker = (preDrain: HookSpec[], preTerminate: HookSpec[] = []) =>
  machine({ role: 'worker', preDrain, preTerminate });
const create = (obj: Record<string, unknown>) =>
  reviewInput({ operation: 'CREATE', object: obj, user: USERS.machineApi });
const update = (obj: Record<string, unknown>, oldObject: Record<string, unknown>, user: UserInfo = USERS.machineApi) =>
  reviewInput({ operation: 'UPDATE', object: obj, oldObject, user });
const othersMessage = (path: string, n: number, max = 64) =>
  `${path}: Too many: ${n}: must have at most ${max} items (policy maxHooksPerStage; hooks of owners the policy names are not counted)`;
const rules = (violations: ReadonlyArray<{ rule: string }>) => violations.map((v) => v.rule);

describe('hook-count', () => {
  test('the default bound is 64 hooks per stage: 64 in each stage pass, 65 in one are refused in its words', () => {
    assert.equal(DEFAULT_POLICY.maxHooksPerStage, 64);
    assert.equal(evaluate(DEFAULT_POLICY, create(worker(hooks(64), hooks(64, 'term-')))).allowed, true);
    const d = evaluate(DEFAULT_POLICY, create(worker(hooks(65))));
    assert.deepEqual(
      d.denials.map((v) => [v.rule, v.path, v.message]),
      [['hook-count', 'spec.lifecycleHooks.preDrain', othersMessage('spec.lifecycleHooks.preDrain', 65)]],
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

describe('hook-count: the bound is on what others add, never on the hooks of owners the policy names', () => {
  test('the etcd operator re-adds its hook to a preDrain of 64 unprotected hooks: allowed (issue 34)', () => {
    const before = machine({ preDrain: hooks(64) });
    const after = machine({ preDrain: [...hooks(64), { ...ETCD }] });
    const d = evaluate(DEFAULT_POLICY, update(after, before, USERS.etcdOperator));
    assert.deepEqual([d.allowed, rules(d.denials), rules(d.warnings)], [true, [], []]);
  });

  test('a control-plane CREATE with 64 unprotected hooks gets the etcd hook and is allowed; a 65th is refused', () => {
    const input = create(machine({ role: 'master', preDrain: hooks(64) }));
    const m = mutate(DEFAULT_POLICY, input);
    assert.ok(m.mutated, 'the default hook is added');
    const d = evaluate(DEFAULT_POLICY, { ...input, object: m.mutated });
    assert.deepEqual([d.allowed, rules(d.denials)], [true, []]);
    const over = create(machine({ role: 'master', preDrain: hooks(65) }));
    const refused = evaluate(DEFAULT_POLICY, { ...over, object: mutate(DEFAULT_POLICY, over).mutated });
    assert.deepEqual(
      refused.denials.map((v) => v.message),
      [othersMessage('spec.lifecycleHooks.preDrain', 65)],
    );
  });

  test("owners the policy names: registered, a reserved hook's, a default hook's; an RBAC grant alone is not", () => {
    const policy = parsePolicy(
      [
        'apiVersion: hookkeeper.io/v1alpha1',
        'kind: Policy',
        'maxHooksPerStage: 2',
        // The default hook names its owner; these reviews are judged unmutated, so the check that it was added is off.
        'enforcement: {default-hook-kept: "off"}',
        'owners: {team/registered: {users: [bob]}}',
        'reservedHooks: [{name: Reserved, owner: team/reserved}]',
        'defaultHooks:',
        '  - {name: d, match: {kinds: [{group: machine.openshift.io, kind: Machine}]}, stage: preTerminate, hook: {name: Drain, owner: team/default}}',
      ].join('\n'),
      'p.yaml',
    );
    const named = ['team/registered', 'team/reserved', 'team/default', 'clusteroperator/etcd'].flatMap((o, i) =>
      hooks(3, `n${i}-`, o),
    );
    // Nine hooks of the three named owners and two of team-a pass; clusteroperator/etcd is not named here: its count.
    assert.deepEqual(rules(evaluate(policy, create(worker([...named.slice(0, 9), ...hooks(2)]))).denials), []);
    const d = evaluate(policy, create(worker(named)));
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [othersMessage('spec.lifecycleHooks.preDrain', 3, 2)],
    );
    const granted = { ownership: { granted: new Set(['team-a']), access: {}, grantsKnown: true } };
    // team-a is granted through RBAC, which native mode cannot see: its hooks count as others' in both engines.
    assert.deepEqual(rules(evaluate(policy, { ...create(worker(hooks(3))), context: granted }).denials), [
      'hook-count',
    ]);
  });

  test(`hooks of owners the policy names have a fixed bound of ${POLICY_OWNER_HOOKS_PER_STAGE} a stage, ratcheted alike`, () => {
    assert.equal(POLICY_OWNER_HOOKS_PER_STAGE, 64);
    const etcd = (n: number) => hooks(n, 'etcd-', ETCD.owner);
    assert.equal(evaluate(DEFAULT_POLICY, create(worker([...etcd(64), ...hooks(64)]))).allowed, true);
    const d = evaluate(DEFAULT_POLICY, create(worker([...etcd(65), ...hooks(64)])));
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'spec.lifecycleHooks.preDrain: Too many: 65: must have at most 64 items (hooks of owners the policy names: owners, reservedHooks, defaultHooks)',
      ],
    );
    // Stored over it: the owner may remove or keep (warned), not add.
    const kept = evaluate(DEFAULT_POLICY, update(worker(etcd(66)), worker(etcd(66)), USERS.etcdOperator));
    assert.deepEqual([kept.allowed, rules(kept.warnings)], [true, ['hook-count']]);
    const grown = evaluate(DEFAULT_POLICY, update(worker(etcd(67)), worker(etcd(66)), USERS.etcdOperator));
    assert.deepEqual(rules(grown.denials), ['hook-count']);
  });

  test('each count ratchets on its own: others shrinking while the policy owners add is allowed', () => {
    const before = worker([...hooks(70)]);
    const after = worker([...hooks(69), { ...ETCD }]);
    const d = evaluate(DEFAULT_POLICY, update(after, before, USERS.etcdOperator));
    assert.deepEqual([d.allowed, rules(d.warnings)], [true, ['hook-count']]);
    // An unprotected hook swapped for another at the bound keeps the count; one more of them does not.
    const swap = evaluate(DEFAULT_POLICY, update(worker([...hooks(69), { name: 'swapped', owner: 'team-b' }]), before));
    assert.equal(swap.allowed, true);
  });
});
