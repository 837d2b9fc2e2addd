// A Cluster API hook is the annotation key that blocks the deletion: two keys whose parsed names are equal
// ("<prefix>/<prefix>.b" and "<prefix>.b") are two hooks, each judged on its own, whatever order the keys come in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import type { Policy } from '../../src/core/policy.js';
import type { UserInfo } from '../../src/core/types.js';
import { CAPI_USERS, capiInput, capiMachine, capiPolicy, PRE_DRAIN, PRE_TERMINATE } from '../fixtures/capi.js';

const policy = capiPolicy();
/** A key that only starts with the prefix, and the canonical key whose parsed name is that same string. */
const T_B = `${PRE_TERMINATE}.b`;
const T_T_B = `${PRE_TERMINATE}/${T_B}`;
const INSTALLER: UserInfo = {
  username: 'system:serviceaccount:openshift-etcd-operator:installer',
  uid: 'u-21',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:openshift-etcd-operator', 'system:authenticated'],
};

function update(
  before: Record<string, string>,
  after: Record<string, string>,
  user: UserInfo,
  o: { policy?: Policy; deletionTimestamp?: string } = {},
) {
  const at = o.deletionTimestamp ? { deletionTimestamp: o.deletionTimestamp } : {};
  const oldObject = capiMachine({ role: 'worker', annotations: before, ...at });
  const object = capiMachine({ role: 'worker', annotations: after, resourceVersion: '182802', ...at });
  return handle('validate', o.policy ?? policy, capiInput({ operation: 'UPDATE', object, oldObject, user }));
}

/** The same annotations with their keys in reverse order (the API server sends them sorted: "." before "/"). */
const reversed = (a: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(a).reverse());

describe('Cluster API: every hook annotation key is a hook of its own', () => {
  // Sorted as the API server returns them: the prefix-only key first.
  const stored = { [T_B]: 'system:masters', [T_T_B]: 'clusteroperator/etcd' };
  const etcdDenial =
    `metadata.annotations[${T_T_B}]: Forbidden: "alice" may not remove preTerminate hook ${JSON.stringify(T_B)} owned by "clusteroperator/etcd"; ` +
    'only its owner may: system:serviceaccount:openshift-etcd-operator:etcd-operator (break-glass: group system:masters); ' +
    'to let "alice" act for it: kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove ' +
    '--resource=hookowners.hookkeeper.io --resource-name=clusteroperator/etcd && kubectl create clusterrolebinding ' +
    'hookowner-clusteroperator-etcd-alice --clusterrole=hookowner-clusteroperator-etcd --user=alice';

  test('removing the etcd-owned key while another key names the same hook is denied, in either key order', () => {
    for (const before of [stored, reversed(stored)]) {
      const out = update(before, { [T_B]: 'system:masters' }, CAPI_USERS.alice);
      assert.equal(out.result.allowed, false);
      assert.deepEqual(
        out.decision.denials.map((v) => v.message),
        [etcdDenial],
      );
    }
  });

  test('removing it while re-owning the other key is denied for the etcd hook too', () => {
    for (const before of [stored, reversed(stored)]) {
      const out = update(before, { [T_B]: 'alice' }, CAPI_USERS.alice);
      assert.deepEqual(
        out.decision.denials.map((v) => v.path),
        [`metadata.annotations[${T_T_B}]`],
      );
    }
  });

  test("the owner removes its key and keeps the other key's hook: allowed, the stored naming problem a warning", () => {
    const out = update(stored, { [T_B]: 'system:masters' }, CAPI_USERS.etcdOperator);
    assert.equal(out.result.allowed, true);
    assert.deepEqual(
      out.decision.warnings.map((v) => `${v.rule} ${v.path}`),
      ['hook-naming metadata.annotations'],
    );
  });

  test('stored duplicates: removing one of two keys of one name and owner is judged by that key alone', () => {
    const T_A = `${PRE_TERMINATE}-a`;
    const before = { [T_A]: 'alice', [`${PRE_TERMINATE}/${T_A}`]: 'alice' };
    const out = update(before, { [T_A]: 'alice' }, INSTALLER);
    assert.equal(out.result.allowed, true);
    assert.deepEqual(
      out.decision.warnings.map((v) => `${v.rule} ${v.message}`),
      [
        `hook-naming metadata.annotations: Invalid value: ${JSON.stringify(T_A)}: an annotation key starting with "${PRE_TERMINATE}" declares a preTerminate hook and must be "${PRE_TERMINATE}/<name>"`,
      ],
    );
    // Both keys kept, another annotation changed: nothing to judge but the stored naming problem.
    const relabelled = update(before, { ...before, 'example.com/note': 'x' }, INSTALLER);
    assert.equal(relabelled.result.allowed, true);
    assert.deepEqual(
      relabelled.decision.warnings.map((v) => v.rule),
      ['hook-naming'],
    );
  });

  test('a deleting Machine: swapping the owners of two keys of one name changes both hooks, and is frozen', () => {
    const deleting = '2026-11-21T10:00:00Z';
    const before = { [T_B]: 'team/a', [T_T_B]: 'team/b' };
    for (const [from, to] of [
      [before, { [T_B]: 'team/b', [T_T_B]: 'team/a' }],
      [reversed(before), reversed({ [T_B]: 'team/b', [T_T_B]: 'team/a' })],
    ] as const) {
      const out = update(from, to, CAPI_USERS.admin, { deletionTimestamp: deleting });
      assert.deepEqual(
        out.decision.denials.map((v) => v.rule),
        ['deletion-freeze'],
      );
    }
  });

  test('strictOwners: a new key is an added hook even when a stored key of the same name has its owner', () => {
    const strict = capiPolicy('strictOwners: true\n');
    const out = update({ [T_B]: 'team/x' }, { [T_B]: 'team/x', [T_T_B]: 'team/x' }, CAPI_USERS.admin, {
      policy: strict,
    });
    assert.deepEqual(
      out.decision.denials.map((v) => `${v.rule} ${v.path}`),
      [`owner-only-removal metadata.annotations[${T_T_B}]`],
    );
  });

  test('single-owner: a pre-terminate hook is compared with every pre-drain key of its name, in either order', () => {
    const D_X = `${PRE_DRAIN}.x`;
    const before = { [D_X]: 'team/a', [`${PRE_DRAIN}/${D_X}`]: 'team/b', [`${PRE_TERMINATE}/${D_X}`]: 'team/b' };
    const after = { ...before, 'example.com/note': 'x' };
    for (const [from, to] of [
      [before, after],
      [reversed(before), reversed(after)],
    ] as const) {
      // Stored as it is: a warning, never a denial; and never "appears twice", as two keys are two hooks.
      const out = update(from, to, CAPI_USERS.admin);
      assert.equal(out.result.allowed, true);
      assert.deepEqual(
        out.decision.warnings.filter((v) => v.rule === 'single-owner').map((v) => v.path),
        [`metadata.annotations[${PRE_TERMINATE}/${D_X}]`],
      );
    }
  });
});

describe('Cluster API: a key that only starts with a hook prefix', () => {
  const D_X = `${PRE_DRAIN}.x`;
  const shape = `metadata.annotations: Invalid value: ${JSON.stringify(D_X)}: an annotation key starting with "${PRE_DRAIN}" declares a preDrain hook and must be "${PRE_DRAIN}/<name>"`;

  test('break-glass re-owning a stored prefix-only key: the key is unchanged, so its naming problem stays a warning', () => {
    const out = update({ [D_X]: 'some-owner' }, { [D_X]: 'other-owner' }, CAPI_USERS.admin);
    assert.equal(out.result.allowed, true);
    assert.ok(out.decision.warnings.some((v) => v.rule === 'hook-naming' && v.message === shape));
  });

  test('adding one is refused', () => {
    const out = update({}, { [D_X]: 'some-owner' }, CAPI_USERS.admin);
    assert.deepEqual(
      out.decision.denials.map((v) => v.message),
      [shape],
    );
  });
});
