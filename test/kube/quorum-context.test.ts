// serve's quorum lookup: one LIST of the cluster's control-plane Machines, only for a quorum hook's removal by
// someone but its registered owner, bounded in size (more than the bound is TooMany) and in time (the lookup budget).
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { MAX_QUORUM_MACHINES } from '../../src/core/quorum.js';
import type { KubeObject, ReviewInput } from '../../src/core/types.js';
import type { ApiGet } from '../../src/infrastructure/kube/api-requests.js';
import { createQuorumContext } from '../../src/infrastructure/kube/quorum-context.js';
import { silentLogger } from '../../src/infrastructure/log.js';

const ETCD = { name: 'EtcdQuorumOperator', owner: 'clusteroperator/etcd' };
const master = (preDrain: Array<typeof ETCD>): KubeObject => ({
  metadata: {
    name: 'm-1',
    namespace: 'openshift-machine-api',
    labels: {
      'machine.openshift.io/cluster-api-machine-role': 'master',
      'machine.openshift.io/cluster-api-cluster': 'ci-ln-7x2k9',
    },
  },
  spec: { lifecycleHooks: { preDrain } },
});
const REMOVAL: ReviewInput = {
  operation: 'UPDATE',
  kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
  namespace: 'openshift-machine-api',
  name: 'm-1',
  object: master([]),
  oldObject: master([ETCD]),
  userInfo: { username: 'kube:admin', groups: ['system:masters'] },
  dryRun: false,
};
const LIST_PATH =
  '/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines?' +
  'labelSelector=machine.openshift.io%2Fcluster-api-machine-role+in+%28master%2Carbiter%29%2C' +
  `machine.openshift.io%2Fcluster-api-cluster%3Dci-ln-7x2k9&limit=${MAX_QUORUM_MACHINES}`;

function context(get: ApiGet, budgetMs = 1000) {
  const paths: string[] = [];
  const quorum = createQuorumContext({
    loadKubeConfig: () => {
      throw new Error('not used: get is given');
    },
    policy: () => DEFAULT_POLICY,
    logger: silentLogger(),
    budgetMs,
    get: (path, signal) => {
      paths.push(path);
      return get(path, signal);
    },
  });
  return { quorum, paths };
}

describe('createQuorumContext', () => {
  test("lists the cluster's control-plane Machines for break-glass removing the etcd hook", async () => {
    const items = [master([]), master([ETCD])];
    const { quorum, paths } = context(async () => ({
      status: 200,
      body: { kind: 'MachineList', metadata: {}, items },
    }));
    assert.deepEqual(await quorum.gather(REMOVAL), { quorum: { found: true, machines: items } });
    assert.deepEqual(paths, [LIST_PATH]);
  });

  test('the owner, a kept hook, or a worker: no request, no promise', () => {
    const { quorum, paths } = context(async () => ({ status: 200, body: { items: [] } }));
    const operator = 'system:serviceaccount:openshift-etcd-operator:etcd-operator';
    assert.equal(quorum.gather({ ...REMOVAL, userInfo: { username: operator, groups: [] } }), undefined);
    assert.equal(quorum.gather({ ...REMOVAL, object: master([ETCD]) }), undefined);
    const worker = { metadata: { labels: { 'machine.openshift.io/cluster-api-machine-role': 'worker' } } };
    assert.equal(
      quorum.gather({ ...REMOVAL, oldObject: { ...master([ETCD]), ...worker }, object: { ...master([]), ...worker } }),
      undefined,
    );
    assert.deepEqual(paths, []);
  });

  test('more Machines than the bound (a continue token) is TooMany, not a partial answer', async () => {
    const { quorum } = context(async () => ({
      status: 200,
      body: { metadata: { continue: 'next' }, items: [master([])] },
    }));
    const out = await quorum.gather(REMOVAL);
    assert.equal(out?.quorum?.found === false && out.quorum.reason, 'TooMany');
  });

  test('an error status, a thrown GET and a body that is no list each say Error', async () => {
    const cases: ApiGet[] = [
      async () => ({ status: 403, body: { message: 'machines is forbidden' } }),
      () => Promise.reject(new Error('ECONNREFUSED')),
      async () => ({ status: 200, body: { items: 'no' } }),
    ];
    for (const get of cases) {
      const out = await context(get).quorum.gather(REMOVAL);
      assert.equal(out?.quorum?.found === false && out.quorum.reason, 'Error');
    }
  });

  test('no answer within the budget is Timeout', async (t) => {
    mock.timers.enable({ apis: ['setTimeout'] });
    t.after(() => mock.timers.reset());
    const pending = context(() => new Promise(() => undefined), 1500).quorum.gather(REMOVAL);
    // Let the lookup start its deadline before the clock moves.
    await Promise.resolve();
    await Promise.resolve();
    mock.timers.tick(1500);
    const out = await pending;
    assert.equal(out?.quorum?.found === false && out.quorum.reason, 'Timeout');
  });
});
