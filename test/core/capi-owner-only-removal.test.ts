// Rule owner-only-removal for Cluster API: a hook annotation is removed (or re-owned) only by its owner's
// identities or break-glass; an empty owner can never be registered, so only strictOwners checks it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject, UserInfo } from '../../src/core/types.js';
import {
  CAPI_USERS,
  capiInput,
  capiMachine,
  capiPolicy,
  capiTemplate,
  KCP_CLEANUP,
  PRE_DRAIN,
  PRE_TERMINATE,
  type CapiVersion,
} from '../fixtures/capi.js';

const ETCD_KEY = `${PRE_DRAIN}/EtcdQuorumOperator`;
const MIGRATOR_KEY = `${PRE_TERMINATE}/migrate-volumes`;
const HOOKS: Record<string, string> = {
  [ETCD_KEY]: 'clusteroperator/etcd',
  [MIGRATOR_KEY]: 'storage.example.com/volume-migrator',
};
const policy = capiPolicy();

function update(
  before: Record<string, string>,
  after: Record<string, string>,
  user: UserInfo,
  o: { version?: CapiVersion; policy?: Policy } = {},
) {
  const version = o.version ?? 'v1beta1';
  const oldObject = capiMachine({ version, annotations: before });
  const object = capiMachine({ version, annotations: after, resourceVersion: '182801' });
  return handle('validate', o.policy ?? policy, capiInput({ operation: 'UPDATE', object, oldObject, user }));
}

function without(key: string): Record<string, string> {
  const { [key]: _gone, ...rest } = HOOKS;
  return rest;
}

describe('owner-only-removal for Cluster API hook annotations', () => {
  for (const version of ['v1beta1', 'v1beta2'] as const) {
    test(`${version}: the owner's service account removes its hook`, () => {
      assert.equal(update(HOOKS, without(ETCD_KEY), CAPI_USERS.etcdOperator, { version }).result.allowed, true);
      assert.equal(update(HOOKS, without(MIGRATOR_KEY), CAPI_USERS.volumeMigrator, { version }).result.allowed, true);
    });

    test(`${version}: anyone else is denied, told who may`, () => {
      const out = update(HOOKS, without(ETCD_KEY), CAPI_USERS.capi, { version });
      assert.equal(out.result.allowed, false);
      assert.equal(
        out.result.status?.message,
        `metadata.annotations[${ETCD_KEY}]: Forbidden: "system:serviceaccount:capi-system:capi-manager" may not remove preDrain hook "EtcdQuorumOperator" owned by "clusteroperator/etcd"; ` +
          'only its owner may: system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
          'to let "system:serviceaccount:capi-system:capi-manager" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd ' +
          '--verb=remove --resource=hookowners.hookkeeper.io --resource-name=clusteroperator/etcd && kubectl create clusterrolebinding ' +
          'hookowner-clusteroperator-etcd-system-serviceaccount-capi-system-capi-manager --clusterrole=hookowner-clusteroperator-etcd ' +
          '--serviceaccount=capi-system:capi-manager',
      );
      assert.deepEqual(out.decision.denials[0]?.hook, {
        stage: 'preDrain',
        name: 'EtcdQuorumOperator',
        owner: 'clusteroperator/etcd',
      });
    });
  }

  test("changing the annotation value is changing the owner, and is the owner's to do", () => {
    const out = update(HOOKS, { ...HOOKS, [MIGRATOR_KEY]: 'alice' }, CAPI_USERS.alice);
    assert.deepEqual(
      out.decision.denials.map((v) => v.message),
      [
        `metadata.annotations[${MIGRATOR_KEY}]: Forbidden: "alice" may not change the owner of preTerminate hook "migrate-volumes" owned by "storage.example.com/volume-migrator"; ` +
          'only its owner may: system:serviceaccount:storage-system:volume-migrator (break-glass: group system:masters); ' +
          'to let "alice" act for it: kubectl create clusterrole hookowner-storage.example.com-volume-migrator --verb=remove ' +
          '--resource=hookowners.hookkeeper.io --resource-name=storage.example.com/volume-migrator && kubectl create clusterrolebinding ' +
          'hookowner-storage.example.com-volume-migrator-alice --clusterrole=hookowner-storage.example.com-volume-migrator --user=alice',
      ],
    );
  });

  test('break-glass removes any hook, with a warning and an audit annotation', () => {
    const out = update(HOOKS, without(ETCD_KEY), CAPI_USERS.admin);
    assert.equal(out.result.allowed, true);
    assert.deepEqual(out.result.warnings, [
      'break-glass: kube:admin may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited',
    ]);
    assert.deepEqual(out.result.auditAnnotations, {
      'break-glass-hook-removal': JSON.stringify({
        stage: 'preDrain',
        hook: 'EtcdQuorumOperator',
        owner: 'clusteroperator/etcd',
        user: 'kube:admin',
        action: 'removal',
        route: 'break-glass',
      }),
    });
  });

  test('kcp-cleanup has the empty owner, which no policy can register or grant: its removal is unverified (warned)', () => {
    const before = { [KCP_CLEANUP]: '' };
    for (const user of [CAPI_USERS.kcp, CAPI_USERS.capi, CAPI_USERS.alice]) {
      const oldObject = capiMachine({ annotations: before });
      const object = capiMachine({ withoutKcpAnnotations: true, resourceVersion: '182801' });
      const out = handle('validate', policy, capiInput({ operation: 'UPDATE', object, oldObject, user }));
      assert.equal(out.result.allowed, true, user.username);
      assert.equal(out.decision.notices[0]?.unverifiedOwner, '', user.username);
    }
  });

  test('hooks of unregistered owners are not identity-checked: allowed, warned (unverifiedRemoval: warn)', () => {
    const before = { ...HOOKS, [`${PRE_DRAIN}/team-x-hook`]: 'team-x' };
    const out = update(before, HOOKS, CAPI_USERS.alice);
    assert.equal(out.result.allowed, true);
    assert.deepEqual(out.result.warnings, [
      'unverified: hook team-x-hook of team-x; grant remove on hookowners/team-x; by alice',
    ]);
  });

  test('editing other annotations leaves hooks alone and is allowed', () => {
    assert.equal(update(HOOKS, { ...HOOKS, 'example.com/note': 'x' }, CAPI_USERS.alice).result.allowed, true);
  });

  test('templates are not live: removing a hook from a MachineSet template is not identity-checked', () => {
    const oldObject = capiTemplate('MachineSet', HOOKS);
    const object = capiTemplate('MachineSet', without(ETCD_KEY));
    assert.equal(
      handle('validate', policy, capiInput({ operation: 'UPDATE', object, oldObject, user: CAPI_USERS.alice })).result
        .allowed,
      true,
    );
  });
});

describe('strictOwners with Cluster API hook annotations', () => {
  const strict = capiPolicy('strictOwners: true\n');
  // As the API server runs a CREATE: mutated (a control-plane Machine gets its default hook), then validated.
  const create = (obj: KubeObject, user: UserInfo) =>
    handle('mutate-then-validate', strict, capiInput({ operation: 'CREATE', object: obj, user }));

  test('adding a hook with the empty owner is denied, as it could never be identity-checked', () => {
    const out = create(
      capiMachine({ role: 'worker', annotations: { [`${PRE_DRAIN}/my-hook`]: '' } }),
      CAPI_USERS.alice,
    );
    assert.deepEqual(
      out.decision.denials.map((v) => v.message),
      [
        `metadata.annotations[${PRE_DRAIN}/my-hook]: Invalid value: "": owner of hook "my-hook" is not registered in the policy and strictOwners is on`,
      ],
    );
  });

  test("so strictOwners refuses the kubeadm control plane's Machines (kcp-cleanup)", () => {
    assert.deepEqual(
      create(capiMachine(), CAPI_USERS.kcp).decision.denials.map((v) => v.path),
      [`metadata.annotations[${KCP_CLEANUP}]`],
    );
  });

  test('a hook with a registered owner may be added; a stored empty-owner hook does not block updates', () => {
    assert.equal(create(capiMachine({ role: 'worker', annotations: HOOKS }), CAPI_USERS.alice).result.allowed, true);
    const out = update({ [KCP_CLEANUP]: '' }, { [KCP_CLEANUP]: '', 'example.com/note': 'x' }, CAPI_USERS.alice, {
      policy: strict,
    });
    assert.equal(out.result.allowed, true);
  });
});
