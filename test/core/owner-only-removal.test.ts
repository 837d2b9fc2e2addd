// Rule owner-only-removal: who may remove or re-own a hook, break-glass, and strict owners.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import type { Policy } from '../../src/core/policy.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';

const STORAGE = { name: 'storage.example.com/Migrate', owner: 'storage-operator' };

function update(
  before: HookSpec[],
  after: HookSpec[],
  user: { username: string; groups: readonly string[] },
  policy: Policy = DEFAULT_POLICY,
) {
  return evaluate(
    policy,
    reviewInput({
      operation: 'UPDATE',
      object: machine({ preDrain: after, resourceVersion: '48300' }),
      oldObject: machine({ preDrain: before }),
      user,
    }),
  );
}

describe('owner-only-removal', () => {
  const table: Array<[string, HookSpec[], HookSpec[], { username: string; groups: readonly string[] }, boolean]> = [
    ['etcd operator removes its hook', [ETCD], [], USERS.etcdOperator, true],
    ['ordinary user removes the etcd hook', [ETCD], [], USERS.alice, false],
    ['machine-api controllers remove the etcd hook', [ETCD], [], USERS.machineApi, false],
    ['ordinary user keeps the etcd hook and adds another', [ETCD], [ETCD, STORAGE], USERS.alice, true],
    ['reordering is not a removal', [STORAGE, ETCD], [ETCD, STORAGE], USERS.alice, true],
    // A list naming the hook twice (the CRD's list-map key refuses it): an entry kept does not stand for another.
    [
      'a stored list naming the etcd hook twice: removing the etcd entry',
      [{ ...ETCD, owner: 'team/other' }, ETCD],
      [{ ...ETCD, owner: 'team/other' }],
      USERS.alice,
      false,
    ],
    // Allowed with a warning under the default unverifiedRemoval: warn (test/core/hook-ownership.test.ts).
    ['unregistered owner: not identity-checked', [ETCD, STORAGE], [ETCD], USERS.alice, true],
    [
      'changing the owner of a registered hook is a removal',
      [ETCD],
      [{ name: ETCD.name, owner: 'alice-own' }],
      USERS.alice,
      false,
    ],
  ];
  for (const [title, before, after, user, allowed] of table) {
    test(title, () => assert.equal(update(before, after, user).allowed, allowed));
  }

  test('the denial says which hook, which owner, who tried and who may', () => {
    const d = update([ETCD], [], USERS.alice);
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'spec.lifecycleHooks.preDrain[0]: Forbidden: "alice" may not remove preDrain hook "EtcdQuorumOperator" owned by "clusteroperator/etcd"; ' +
          'only its owner may: system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
          'to let "alice" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove --resource=hookowners.hookkeeper.io ' +
          '--resource-name=clusteroperator/etcd && kubectl create clusterrolebinding hookowner-clusteroperator-etcd-alice ' +
          '--clusterrole=hookowner-clusteroperator-etcd --user=alice',
      ],
    );
  });

  test('break-glass removes any hook, with a warning and an audit annotation', () => {
    const d = update([ETCD], [], USERS.admin);
    assert.equal(d.allowed, true);
    assert.deepEqual(d.notices, [
      {
        rule: 'owner-only-removal',
        warning: 'break-glass: kube:admin may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited',
        audit: {
          key: 'break-glass-hook-removal',
          value:
            '{"stage":"preDrain","hook":"EtcdQuorumOperator","owner":"clusteroperator/etcd","user":"kube:admin","action":"removal","route":"break-glass"}',
        },
        breakGlass: { action: 'hook-removal', owners: ['clusteroperator/etcd'] },
      },
    ]);
  });

  test('registered users and groups act for an owner', () => {
    const policy: Policy = {
      ...DEFAULT_POLICY,
      owners: { 'storage-operator': { users: ['bob'], groups: ['storage-admins'], serviceAccounts: [] } },
    };
    assert.equal(update([STORAGE], [], { username: 'bob', groups: [] }, policy).allowed, true);
    assert.equal(update([STORAGE], [], { username: 'carol', groups: ['storage-admins'] }, policy).allowed, true);
    assert.equal(update([STORAGE], [], { username: 'dave', groups: ['dev'] }, policy).allowed, false);
  });

  test('strictOwners: a hook with an unregistered owner cannot be added', () => {
    const strict: Policy = { ...DEFAULT_POLICY, strictOwners: true };
    const d = update([ETCD], [ETCD, STORAGE], USERS.alice, strict);
    assert.deepEqual(
      d.denials.map((v) => v.path),
      ['spec.lifecycleHooks.preDrain[1].owner'],
    );
    assert.match(d.denials[0]?.message ?? '', /not registered in the policy and strictOwners is on/);
    // Hooks that were already there are not re-judged.
    assert.equal(update([ETCD, STORAGE], [ETCD, STORAGE], USERS.alice, strict).allowed, true);
  });

  test('CREATE and templates are not removals', () => {
    const d = evaluate(
      DEFAULT_POLICY,
      reviewInput({ operation: 'CREATE', object: machine({ preDrain: [ETCD] }), user: USERS.alice }),
    );
    assert.equal(d.allowed, true);
  });
});
