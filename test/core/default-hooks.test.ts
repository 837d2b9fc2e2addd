// Rule default-hooks: etcd quorum protection injected on control-plane Machines, idempotently, by diff.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate, mutate } from '../../src/core/engine.js';
import { ETCD, machine, USERS } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';

const create = (obj: Record<string, unknown>) =>
  reviewInput({ operation: 'CREATE', object: obj, user: USERS.machineApi });
const update = (obj: Record<string, unknown>, oldObject: Record<string, unknown>) =>
  reviewInput({ operation: 'UPDATE', object: obj, oldObject, user: USERS.machineApi });

describe('default-hooks', () => {
  test('a master Machine gets the etcd hook appended', () => {
    const m = mutate(DEFAULT_POLICY, create(machine({ role: 'master' })));
    assert.deepEqual(m.patch, [{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] }]);
    assert.deepEqual(m.changes, [
      'etcd-quorum-protection: added preDrain hook "EtcdQuorumOperator" owned by "clusteroperator/etcd"',
    ]);
  });

  test('other hooks are kept in order, the etcd hook goes last', () => {
    const mine = { name: 'storage.example.com/Migrate', owner: 'storage-operator' };
    const m = mutate(DEFAULT_POLICY, create(machine({ role: 'arbiter', preDrain: [mine] })));
    assert.deepEqual(m.patch, [{ op: 'add', path: '/spec/lifecycleHooks/preDrain/1', value: ETCD }]);
  });

  test('a stage holding a hook without a string name or owner is left alone: validation reports it, mutation never drops it', () => {
    for (const odd of [{ name: 42, owner: 'team/x' }, { name: 'Team', owner: { deep: [1] } }, { owner: 'team/x' }]) {
      const obj = machine({ role: 'master' });
      (obj['spec'] as Record<string, unknown>)['lifecycleHooks'] = {
        preDrain: [odd, { name: 'storage.example.com/Migrate', owner: 'storage-operator' }],
      };
      const m = mutate(DEFAULT_POLICY, create(obj));
      assert.deepEqual(m.patch, [], JSON.stringify(odd));
    }
  });

  test('a Machine without spec.lifecycleHooks gets the whole stanza', () => {
    const obj = machine({ role: 'master' });
    delete (obj['spec'] as Record<string, unknown>)['lifecycleHooks'];
    const m = mutate(DEFAULT_POLICY, create(obj));
    assert.deepEqual(m.patch, [{ op: 'add', path: '/spec/lifecycleHooks', value: { preDrain: [ETCD] } }]);
  });

  test("two entries of the default hook's name: only the first is re-owned, as the CEL form's JSONPatch does", () => {
    // Found by the differential fuzzer (a generated policy with single-owner off); the CRDs' list-map keys never
    // store two, so only the engines' agreement is at stake.
    const wrong = { name: ETCD.name, owner: 'ab' };
    const m = mutate(DEFAULT_POLICY, create(machine({ role: 'arbiter', preDrain: [wrong, wrong] })));
    assert.deepEqual(m.patch, [{ op: 'replace', path: '/spec/lifecycleHooks/preDrain/0/owner', value: ETCD.owner }]);
  });

  test('no patch when the hook is present', () => {
    const m = mutate(DEFAULT_POLICY, create(machine({ role: 'master', preDrain: [ETCD] })));
    assert.deepEqual(m, { mutated: null, patch: [], changes: [] });
  });

  test('an entry with the name but a wrong owner is corrected in place', () => {
    const m = mutate(
      DEFAULT_POLICY,
      create(
        machine({
          role: 'master',
          preDrain: [
            { name: ETCD.name, owner: 'someone' },
            { name: 'Other', owner: 'o-1' },
          ],
        }),
      ),
    );
    assert.deepEqual(m.patch, [{ op: 'replace', path: '/spec/lifecycleHooks/preDrain/0/owner', value: ETCD.owner }]);
  });

  test('workers, other namespaces and UPDATEs of a Machine that already matched are left alone', () => {
    assert.deepEqual(mutate(DEFAULT_POLICY, create(machine({ role: 'worker' }))).patch, []);
    assert.deepEqual(mutate(DEFAULT_POLICY, create(machine({ role: 'master', namespace: 'default' }))).patch, []);
    // Its owner may have removed it, or it slipped in: missing-default-hook names it, the UPDATE is not rewritten.
    assert.deepEqual(
      mutate(DEFAULT_POLICY, update(machine({ role: 'master' }), machine({ role: 'master' }))).patch,
      [],
    );
    assert.deepEqual(mutate(DEFAULT_POLICY, update(machine({ role: 'worker' }), machine({ role: 'infra' }))).patch, []);
    assert.deepEqual(
      mutate(DEFAULT_POLICY, update(machine({ role: 'master', namespace: 'default' }), machine({ role: 'worker' })))
        .patch,
      [],
    );
  });

  test('an UPDATE that makes a Machine match (relabelled master or arbiter) gets the hook', () => {
    for (const role of ['master', 'arbiter'] as const) {
      const m = mutate(DEFAULT_POLICY, update(machine({ role }), machine({ role: 'worker' })));
      assert.deepEqual(m.patch, [{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] }], role);
    }
    // The role label appearing counts as well.
    const old = machine({ role: 'worker' });
    delete ((old['metadata'] as Record<string, unknown>)['labels'] as Record<string, unknown>)[
      'machine.openshift.io/cluster-api-machine-role'
    ];
    assert.equal(mutate(DEFAULT_POLICY, update(machine({ role: 'master' }), old)).patch.length, 1);
  });

  test('a deleting Machine relabelled master gets no hook: the deletion freeze forbids new hooks there', () => {
    const deleting = { deletionTimestamp: '2026-11-21T10:00:00Z' };
    const m = mutate(
      DEFAULT_POLICY,
      update(machine({ role: 'master', ...deleting }), machine({ role: 'worker', ...deleting })),
    );
    assert.deepEqual(m.patch, []);
  });

  test('mutating the mutated object again changes nothing (reinvocation)', () => {
    const first = mutate(DEFAULT_POLICY, create(machine({ role: 'master' })));
    assert.ok(first.mutated);
    assert.deepEqual(mutate(DEFAULT_POLICY, create(first.mutated)).patch, []);
  });

  test('the original object is never modified', () => {
    const obj = machine({ role: 'master' });
    const before = structuredClone(obj);
    mutate(DEFAULT_POLICY, create(obj));
    assert.deepEqual(obj, before);
  });

  test('the audit reports a control-plane Machine without its default hook', () => {
    const d = evaluate(DEFAULT_POLICY, { ...create(machine({ role: 'master' })), source: 'audit' });
    assert.deepEqual(
      d.denials.map((v) => [v.rule, v.path]),
      [['default-hooks', 'spec.lifecycleHooks.preDrain']],
    );
    // Admission adds it first (mutate, then validate the mutated object): allowed there.
    const mutated = mutate(DEFAULT_POLICY, create(machine({ role: 'master' }))).mutated;
    assert.ok(mutated);
    assert.equal(evaluate(DEFAULT_POLICY, create(mutated)).allowed, true);
  });
});

describe('missing-default-hook', () => {
  const deleting = { deletionTimestamp: '2026-11-21T10:00:00Z' };

  test('an UPDATE of a matching Machine that lacks its default hook is warned, by default', () => {
    const d = evaluate(DEFAULT_POLICY, update(machine({ role: 'master' }), machine({ role: 'master' })));
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.warnings.map((v) => [v.rule, v.message]),
      [
        [
          'missing-default-hook',
          'spec.lifecycleHooks.preDrain: Required value: default hook "EtcdQuorumOperator" owned by "clusteroperator/etcd" is missing (policy rule "etcd-quorum-protection")',
        ],
      ],
    );
    const deny = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'missing-default-hook': 'deny' as const },
    };
    assert.equal(evaluate(deny, update(machine({ role: 'master' }), machine({ role: 'master' }))).allowed, false);
  });

  test('nothing to say on CREATE, for a deleting Machine, once mutated, or with default-hooks off', () => {
    const quiet = (policy: typeof DEFAULT_POLICY, input: ReturnType<typeof update>) =>
      assert.deepEqual(
        evaluate(policy, input).warnings.filter((v) => v.rule === 'missing-default-hook'),
        [],
      );
    quiet(DEFAULT_POLICY, create(machine({ role: 'master' })));
    quiet(DEFAULT_POLICY, update(machine({ role: 'master', ...deleting }), machine({ role: 'master', ...deleting })));
    quiet(DEFAULT_POLICY, update(machine({ role: 'master', preDrain: [ETCD] }), machine({ role: 'master' })));
    quiet(DEFAULT_POLICY, update(machine({ role: 'worker' }), machine({ role: 'worker' })));
    // The relabel: the mutation adds the hook first, so validation sees it.
    const relabel = update(machine({ role: 'master' }), machine({ role: 'worker' }));
    const mutated = mutate(DEFAULT_POLICY, relabel).mutated;
    assert.ok(mutated);
    quiet(DEFAULT_POLICY, { ...relabel, object: mutated });
    const off = { ...DEFAULT_POLICY, enforcement: { ...DEFAULT_POLICY.enforcement, 'default-hooks': 'off' as const } };
    quiet(off, update(machine({ role: 'master' }), machine({ role: 'master' })));
    // The update that removes it is owner-only-removal's to judge; the next one is named.
    quiet(DEFAULT_POLICY, update(machine({ role: 'master' }), machine({ role: 'master', preDrain: [ETCD] })));
  });
});
