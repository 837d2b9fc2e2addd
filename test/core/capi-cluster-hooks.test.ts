// Cluster API upgrade hooks (before-upgrade.hook.cluster.cluster.x-k8s.io/<name>: <owner> on a Cluster): the promises
// Machines' hooks get (naming, single owner, owner-only removal and break-glass), and none of the Machine-only rules.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import { carrierFor } from '../../src/core/carriers.js';
import type { KubeObject, UserInfo } from '../../src/core/types.js';
import {
  BEFORE_UPGRADE,
  CAPI_USERS,
  capiCluster,
  capiInput,
  capiMachine,
  capiPolicy,
  PRE_DRAIN,
} from '../fixtures/capi.js';

const policy = capiPolicy();
const MIGRATOR_KEY = `${BEFORE_UPGRADE}/migrate-volumes`;
const ADDONS_KEY = `${BEFORE_UPGRADE}/addons`;
const HOOKS = { [MIGRATOR_KEY]: 'storage.example.com/volume-migrator', [ADDONS_KEY]: 'team-x' };
const GVK = { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Cluster' };

function update(before: KubeObject, after: KubeObject, user: UserInfo) {
  return handle('validate', policy, capiInput({ operation: 'UPDATE', object: after, oldObject: before, user }));
}

const cluster = (annotations: Record<string, unknown>, o: Parameters<typeof capiCluster>[1] = {}) =>
  capiCluster(annotations, { resourceVersion: '182001', ...o });

describe('Cluster API upgrade hooks on Clusters', () => {
  test('a Cluster carries its upgrade hooks, and only those (a deletion prefix there gates nothing)', () => {
    const carrier = carrierFor(GVK);
    assert.ok(carrier, 'Cluster is a carrier');
    const read = carrier.read(capiCluster({ ...HOOKS, [`${PRE_DRAIN}/x`]: 'team-x', other: 'y' }));
    assert.deepEqual(read.hooks.map((h) => [h.stage, h.name, h.owner]).sort(), [
      ['beforeUpgrade', 'addons', 'team-x'],
      ['beforeUpgrade', 'migrate-volumes', 'storage.example.com/volume-migrator'],
    ]);
  });

  test("a Machine's before-upgrade annotation is not one of its hooks", () => {
    const carrier = carrierFor({ ...GVK, kind: 'Machine' });
    const read = carrier?.read(capiMachine({ withoutKcpAnnotations: true, annotations: { [ADDONS_KEY]: 'team-x' } }));
    assert.deepEqual(read?.hooks, []);
  });

  test('naming: a key that only starts with the prefix (the controller counts it) is refused on CREATE', () => {
    const out = handle(
      'validate',
      policy,
      capiInput({
        operation: 'CREATE',
        object: capiCluster({ [`${BEFORE_UPGRADE}-addons`]: 'team-x' }),
        user: CAPI_USERS.alice,
      }),
    );
    assert.equal(out.result.allowed, false);
    assert.deepEqual(
      out.decision.denials.map((v) => v.rule),
      ['hook-naming'],
    );
    assert.match(out.decision.denials[0]?.path ?? '', /^metadata\.annotations/);
  });

  test("single owner: a reserved name keeps its owner on a Cluster's upgrade hook too", () => {
    const out = update(cluster({}), cluster({ [`${BEFORE_UPGRADE}/EtcdQuorumOperator`]: 'team-x' }), CAPI_USERS.alice);
    assert.equal(out.result.allowed, false);
    assert.ok(
      out.decision.denials.some((v) => v.rule === 'single-owner'),
      JSON.stringify(out.decision.denials),
    );
  });

  test("owner-only removal: another identity may not remove the owner's upgrade hook", () => {
    const out = update(cluster(HOOKS), cluster({ [ADDONS_KEY]: 'team-x' }), CAPI_USERS.alice);
    assert.equal(out.result.allowed, false);
    assert.deepEqual(
      out.decision.denials.map((v) => [v.rule, v.path]),
      [['owner-only-removal', `metadata.annotations[${MIGRATOR_KEY}]`]],
    );
    assert.match(out.result.status?.message ?? '', /may not remove beforeUpgrade hook "migrate-volumes" owned by/);
  });

  test('owner-only removal: the owner removes its own; break-glass does, warned', () => {
    assert.equal(
      update(cluster(HOOKS), cluster({ [ADDONS_KEY]: 'team-x' }), CAPI_USERS.volumeMigrator).result.allowed,
      true,
    );
    const out = update(cluster(HOOKS), cluster({ [ADDONS_KEY]: 'team-x' }), CAPI_USERS.admin);
    assert.equal(out.result.allowed, true);
    assert.equal(out.decision.notices[0]?.breakGlass?.action, 'hook-removal');
    assert.equal(out.result.warnings?.length, 1);
  });

  test("an unregistered owner's (or an empty owner's) upgrade hook: removal unverified, warned", () => {
    const out = update(cluster(HOOKS), cluster({ [MIGRATOR_KEY]: HOOKS[MIGRATOR_KEY] }), CAPI_USERS.alice);
    assert.equal(out.result.allowed, true);
    assert.equal(out.decision.notices[0]?.unverifiedOwner, 'team-x');
    const empty = update(cluster({ [ADDONS_KEY]: '' }), cluster({}), CAPI_USERS.alice);
    assert.equal(empty.result.allowed, true);
    assert.equal(empty.decision.notices[0]?.unverifiedOwner, '');
  });

  test('no Machine-only rule selects a Cluster: a deleting Cluster may gain a hook, or lose its finalizer', () => {
    const deleting = { deletionTimestamp: '2026-11-21T10:00:00Z' };
    const added = update(cluster({}, deleting), cluster({ [ADDONS_KEY]: 'team-x' }, deleting), CAPI_USERS.alice);
    assert.equal(added.result.allowed, true, JSON.stringify(added.decision.denials));
    const finished = update(
      cluster({ [ADDONS_KEY]: 'team-x' }, deleting),
      cluster({ [ADDONS_KEY]: 'team-x' }, { ...deleting, finalizers: [] }),
      CAPI_USERS.alice,
    );
    assert.equal(finished.result.allowed, true, JSON.stringify(finished.decision.denials));
  });

  test('no default hook is added to a Cluster, whatever a default-hook rule would select on a Machine', () => {
    const object = capiCluster({}, { finalizers: [] });
    (object['metadata'] as { labels: Record<string, string> }).labels['cluster.x-k8s.io/control-plane'] = '';
    const out = handle('mutate', policy, capiInput({ operation: 'CREATE', object, user: CAPI_USERS.capi }));
    assert.equal(out.result.patch, undefined);
  });
});
