// The hook-owner grant index without a cluster: which rules grant, which bindings count, where, and that events in
// any order (a binding before its role, updates, deletions) leave the same answers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OwnerGrants, ownerGrantsOf } from '../../src/infrastructure/kube/owner-grants.js';
import { visits } from '../helpers/visits.js';

const rule = (o: { groups?: string[]; resources?: string[]; verbs?: string[]; names?: string[] } = {}) => ({
  apiGroups: o.groups ?? ['hookkeeper.io'],
  resources: o.resources ?? ['hookowners'],
  verbs: o.verbs ?? ['remove'],
  ...(o.names ? { resourceNames: o.names } : {}),
});
const clusterRole = (name: string, rules: unknown[]) => ({ metadata: { name, resourceVersion: '1' }, rules });
const role = (namespace: string, name: string, rules: unknown[]) => ({ metadata: { name, namespace }, rules });
const user = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
const crb = (name: string, roleName: string, subjects: unknown[] = [user('bob')]) => ({
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
  subjects,
});
const rb = (namespace: string, name: string, kind: string, roleName: string, subjects: unknown[] = [user('bob')]) => ({
  metadata: { name, namespace },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
  subjects,
});

describe('which rules grant remove on hookowners', () => {
  const cases: Array<[string, unknown, { names: string[]; allNames: boolean } | undefined]> = [
    [
      'named owners, slashes kept',
      [rule({ names: ['team/storage', 'clusteroperator/etcd'] })],
      {
        names: ['team/storage', 'clusteroperator/etcd'],
        allNames: false,
      },
    ],
    ['no resourceNames: every owner', [rule()], { names: [], allNames: true }],
    ['an empty resourceNames list is no list', [rule({ names: [] })], { names: [], allNames: true }],
    [
      'wildcards in group, resource and verb',
      [rule({ groups: ['*'], resources: ['*'], verbs: ['*'], names: ['a/b'] })],
      {
        names: ['a/b'],
        allNames: false,
      },
    ],
    [
      'cluster-admin',
      [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ],
      {
        names: [],
        allNames: true,
      },
    ],
    ['another verb', [rule({ verbs: ['get', 'update'], names: ['a/b'] })], undefined],
    ['another group', [rule({ groups: ['', 'apps'], names: ['a/b'] })], undefined],
    [
      'another resource, or a subresource',
      [rule({ resources: ['hookowners/status', 'machines'], names: ['a/b'] })],
      undefined,
    ],
    ['a nonResourceURLs rule', [{ nonResourceURLs: ['/hookowners'], verbs: ['remove'] }], undefined],
    ['rules that are not rules', [null, 'x', { apiGroups: 'hookkeeper.io' }], undefined],
    ['no rules at all (an aggregated role not filled yet)', undefined, undefined],
    [
      'names across rules add up; an empty name is none',
      [rule({ names: ['a/b', ''] }), rule({ verbs: ['*'], names: ['c/d'] })],
      {
        names: ['a/b', 'c/d'],
        allNames: false,
      },
    ],
  ];
  for (const [name, rules, want] of cases)
    test(name, () => {
      const got = ownerGrantsOf(rules);
      assert.deepEqual(got && { names: [...got.names], allNames: got.allNames }, want);
    });
});

describe('which bindings protect an owner, and where', () => {
  test('a ClusterRole through a ClusterRoleBinding: every namespace, and cluster-scoped objects', () => {
    const g = new OwnerGrants();
    g.upsertRole('ClusterRole', clusterRole('storage', [rule({ names: ['team/storage'] })]));
    g.upsertBinding('ClusterRoleBinding', crb('storage', 'storage'));
    assert.equal(g.protectedIn('team/storage', 'ns1'), true);
    assert.equal(g.protectedIn('team/storage', undefined), true);
    assert.equal(g.protectedIn('team/other', 'ns1'), false);
  });

  test('a ClusterRole through a RoleBinding, or a Role: only the binding namespace', () => {
    const g = new OwnerGrants();
    g.upsertRole('ClusterRole', clusterRole('db', [rule({ names: ['team/db'] })]));
    g.upsertBinding('RoleBinding', rb('ns1', 'db', 'ClusterRole', 'db'));
    g.upsertRole('Role', role('ns2', 'cache', [rule({ names: ['team/cache'] })]));
    g.upsertBinding('RoleBinding', rb('ns2', 'cache', 'Role', 'cache'));
    assert.deepEqual(
      [g.protectedIn('team/db', 'ns1'), g.protectedIn('team/db', 'ns2'), g.protectedIn('team/db', undefined)],
      [true, false, false],
    );
    assert.deepEqual(
      [g.protectedIn('team/cache', 'ns2'), g.protectedIn('team/cache', 'ns1'), g.protectedIn('team/cache', undefined)],
      [true, false, false],
    );
  });

  test('a RoleBinding names the Role of its own namespace, not a same-named one elsewhere', () => {
    const g = new OwnerGrants();
    g.upsertRole('Role', role('ns1', 'owner', [rule({ names: ['team/a'] })]));
    g.upsertBinding('RoleBinding', rb('ns2', 'owner', 'Role', 'owner'));
    assert.equal(g.protectedIn('team/a', 'ns2'), false);
    assert.equal(g.protectedIn('team/a', 'ns1'), false);
  });

  test('a ClusterRoleBinding cannot reference a Role; a binding without subjects grants nobody', () => {
    const g = new OwnerGrants();
    g.upsertRole('Role', role('ns1', 'r', [rule({ names: ['team/a'] })]));
    g.upsertBinding('ClusterRoleBinding', { ...crb('c', 'r'), roleRef: { kind: 'Role', name: 'r' } });
    g.upsertRole('ClusterRole', clusterRole('b', [rule({ names: ['team/b'] })]));
    g.upsertBinding('ClusterRoleBinding', crb('b', 'b', []));
    g.upsertBinding('RoleBinding', rb('ns1', 'b', 'ClusterRole', 'b', [{ kind: 'User' }]));
    assert.equal(g.protectedIn('team/a', 'ns1'), false);
    assert.equal(g.protectedIn('team/b', 'ns1'), false);
  });

  test('grants of every owner (no resourceNames) protect nobody, but their subjects are listed', () => {
    const g = new OwnerGrants();
    g.upsertRole('ClusterRole', clusterRole('cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
    g.upsertBinding(
      'ClusterRoleBinding',
      crb('cluster-admin', 'cluster-admin', [{ kind: 'Group', name: 'system:masters' }]),
    );
    g.upsertRole('ClusterRole', clusterRole('storage', [rule({ names: ['team/storage'] })]));
    g.upsertBinding('RoleBinding', rb('ns1', 'storage', 'ClusterRole', 'storage'));
    assert.equal(g.protectedIn('team/other', 'ns1'), false);
    assert.deepEqual(
      g
        .subjectsFor('team/storage', 'ns1')
        .map((s) => [s.kind, s.name, s.binding.kind, s.binding.namespace, s.role.name, s.allNames]),
      [
        ['User', 'bob', 'RoleBinding', 'ns1', 'storage', false],
        ['Group', 'system:masters', 'ClusterRoleBinding', undefined, 'cluster-admin', true],
      ],
    );
    assert.deepEqual(
      g.subjectsFor('team/storage', 'ns2').map((s) => s.name),
      ['system:masters'],
    );
    assert.deepEqual(
      g.subjectsFor('', 'ns1').map((s) => s.name),
      ['system:masters'],
    );
  });

  test('events in any order: a binding before its role, updates that drop a name, deletions', () => {
    const g = new OwnerGrants();
    g.upsertBinding('ClusterRoleBinding', crb('late', 'late'));
    assert.equal(g.protectedIn('team/late', 'ns1'), false);
    g.upsertRole('ClusterRole', clusterRole('late', [rule({ names: ['team/late', 'team/also'] })]));
    assert.equal(g.protectedIn('team/late', 'ns1'), true);
    g.upsertRole('ClusterRole', clusterRole('late', [rule({ names: ['team/also'] })]));
    assert.equal(g.protectedIn('team/late', 'ns1'), false);
    assert.equal(g.protectedIn('team/also', 'ns1'), true);
    assert.deepEqual(g.namedOwners(), ['team/also']);
    // Rebinding the same binding to nobody, then deleting: nothing left.
    g.upsertBinding('ClusterRoleBinding', crb('late', 'late', []));
    assert.equal(g.protectedIn('team/also', 'ns1'), false);
    g.upsertBinding('ClusterRoleBinding', crb('late', 'late'));
    g.deleteBinding('ClusterRoleBinding', crb('late', 'late'));
    assert.equal(g.protectedIn('team/also', 'ns1'), false);
    g.upsertBinding('ClusterRoleBinding', crb('late', 'late'));
    g.deleteRole('ClusterRole', { metadata: { name: 'late' } });
    assert.equal(g.protectedIn('team/also', 'ns1'), false);
    assert.deepEqual(g.namedOwners(), []);
  });

  test('owner names that are Object.prototype keys are names like any other', () => {
    const g = new OwnerGrants();
    g.upsertRole('ClusterRole', clusterRole('odd', [rule({ names: ['__proto__', 'constructor'] })]));
    g.upsertBinding('ClusterRoleBinding', crb('odd', 'odd'));
    assert.deepEqual(
      ['__proto__', 'constructor', 'toString', 'hasOwnProperty'].map((o) => g.protectedIn(o, 'ns1')),
      [true, true, false, false],
    );
    assert.deepEqual(g.namedOwners(), ['__proto__', 'constructor']);
  });

  test('objects without a name are ignored, not a crash', () => {
    const g = new OwnerGrants();
    for (const bad of [null, 'x', {}, { metadata: {} }, { metadata: { name: 7 } }]) {
      g.upsertRole('ClusterRole', bad);
      g.upsertBinding('RoleBinding', bad);
      g.deleteRole('Role', bad);
      g.deleteBinding('ClusterRoleBinding', bad);
    }
    assert.deepEqual(g.namedOwners(), []);
  });

  test('no work quadratic in the number of roles: 10 times the roles and bindings, about 10 times the work', () => {
    // Counted visits, not a clock: linear work grows about 10 times from 2 000 to 20 000; a scan of all roles per
    // event would grow about 100 times.
    const workFor = (n: number): { g: OwnerGrants; work: number } => {
      const g = new OwnerGrants();
      const work = visits(() => {
        for (let i = 0; i < n; i++) {
          g.upsertRole('ClusterRole', clusterRole(`r${i}`, [rule({ names: [`team/${i}`] })]));
          g.upsertBinding('RoleBinding', rb(`ns${i % 100}`, `b${i}`, 'ClusterRole', `r${i}`));
        }
        for (let i = 0; i < n; i++)
          g.upsertRole('ClusterRole', clusterRole(`r${i}`, [rule({ names: [`team/${i}`, 'shared'] })]));
        for (let i = 0; i < n; i++) assert.equal(g.protectedIn(`team/${i}`, `ns${i % 100}`), true);
      });
      return { g, work };
    };
    const small = workFor(2_000);
    const large = workFor(20_000);
    assert.ok(small.work >= 2_000, `only ${small.work} visits for 2 000 roles: the counters are not counting`);
    const ratio = large.work / small.work;
    assert.ok(ratio < 15, `20 000 roles took ${ratio.toFixed(1)}x the visits of 2 000`);
    assert.equal(large.g.protectedIn('shared', 'ns7'), true);
    assert.equal(large.g.subjectsFor('shared', 'ns7').length, 200);
  });
});
