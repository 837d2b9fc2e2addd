// Rule single-owner: one entry per name and stanza, one owner per name, reserved names keep their owner.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';

function messages(preDrain: HookSpec[], preTerminate: HookSpec[] = []): string[] {
  const obj = machine({ role: 'worker', preDrain, preTerminate });
  return evaluate(
    DEFAULT_POLICY,
    reviewInput({ operation: 'CREATE', object: obj, user: USERS.machineApi }),
  ).denials.map((v) => v.message);
}

describe('single-owner', () => {
  test('a name twice in one stanza is a duplicate, whatever the owners', () => {
    assert.deepEqual(
      messages([
        { name: 'Migrate', owner: 'team-a' },
        { name: 'Migrate', owner: 'team-b' },
      ]),
      ['spec.lifecycleHooks.preDrain[1]: Duplicate value: {"name":"Migrate"}'],
    );
    assert.deepEqual(
      messages(
        [],
        [
          { name: 'Migrate', owner: 'team-a' },
          { name: 'Other', owner: 'x-y' },
          { name: 'Migrate', owner: 'team-a' },
        ],
      ),
      ['spec.lifecycleHooks.preTerminate[2]: Duplicate value: {"name":"Migrate"}'],
    );
  });

  test('the same name in both stanzas must carry the same owner', () => {
    assert.deepEqual(messages([{ name: 'Migrate', owner: 'team-a' }], [{ name: 'Migrate', owner: 'team-a' }]), []);
    assert.deepEqual(messages([{ name: 'Migrate', owner: 'team-a' }], [{ name: 'Migrate', owner: 'team-b' }]), [
      'spec.lifecycleHooks.preTerminate[0].owner: Invalid value: "team-b": hook "Migrate" is owned by "team-a" in preDrain; a hook name must carry the same owner in preDrain and preTerminate',
    ]);
  });

  test('a reserved name can only carry its registered owner', () => {
    assert.deepEqual(messages([ETCD]), []);
    assert.deepEqual(messages([{ name: ETCD.name, owner: 'alice' }]), [
      'spec.lifecycleHooks.preDrain[0].owner: Invalid value: "alice": hook name "EtcdQuorumOperator" is reserved for owner "clusteroperator/etcd"',
    ]);
    assert.equal(messages([], [{ name: ETCD.name, owner: 'someone-else' }]).length, 1);
  });

  test('violations name the hook', () => {
    const obj = machine({
      role: 'worker',
      preDrain: [
        { name: 'Migrate', owner: 'a-1' },
        { name: 'Migrate', owner: 'a-1' },
      ],
    });
    const [v] = evaluate(DEFAULT_POLICY, reviewInput({ operation: 'CREATE', object: obj })).denials;
    assert.deepEqual(v?.hook, { stage: 'preDrain', name: 'Migrate', owner: 'a-1' });
    assert.match(v?.fix ?? '', /appears twice in preDrain/);
  });
});

describe('ratcheting on UPDATE', () => {
  const dup = [
    { name: 'Migrate', owner: 'team-a' },
    { name: 'Migrate', owner: 'team-a' },
  ];

  test('a problem the stored object already had warns instead of denying', () => {
    const old = machine({ role: 'worker', preDrain: dup });
    const next = machine({ role: 'worker', preDrain: dup, resourceVersion: '48300' });
    (next['metadata'] as Record<string, unknown>)['labels'] = { team: 'storage' };
    const d = evaluate(DEFAULT_POLICY, reviewInput({ operation: 'UPDATE', object: next, oldObject: old }));
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.warnings.map((v) => v.rule),
      ['single-owner'],
    );
  });

  test('a problem the UPDATE introduces is denied', () => {
    const old = machine({ role: 'worker', preDrain: [{ name: 'Migrate', owner: 'team-a' }] });
    const next = machine({ role: 'worker', preDrain: dup });
    const d = evaluate(DEFAULT_POLICY, reviewInput({ operation: 'UPDATE', object: next, oldObject: old }));
    assert.deepEqual(
      d.denials.map((v) => v.rule),
      ['single-owner'],
    );
  });
});
