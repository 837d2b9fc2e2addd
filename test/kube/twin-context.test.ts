// serve's twin lookup for the migration: one GET of the other copy, only for a synchronizer's hook removal or a
// Machine someone else creates in a migration namespace, and a failure or a silent API server told apart from a
// missing twin, within the budget.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { ReviewInput } from '../../src/core/types.js';
import type { ApiGet } from '../../src/infrastructure/kube/api-requests.js';
import { createTwinContext } from '../../src/infrastructure/kube/twin-context.js';
import { silentLogger } from '../../src/infrastructure/log.js';

const hooks = (names: string[]) => ({ preDrain: names.map((name) => ({ name, owner: 'team/a' })) });
const REMOVAL: ReviewInput = {
  operation: 'UPDATE',
  kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
  namespace: 'openshift-machine-api',
  name: 'worker-0',
  object: { metadata: { name: 'worker-0' }, spec: { lifecycleHooks: hooks([]) } },
  oldObject: { metadata: { name: 'worker-0' }, spec: { lifecycleHooks: hooks(['h']) } },
  userInfo: { username: 'system:serviceaccount:openshift-cluster-api:capi-controllers', groups: [] },
  dryRun: false,
};

function context(get: ApiGet, budgetMs = 1000) {
  const paths: string[] = [];
  const twins = createTwinContext({
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
  return { twins, paths };
}

describe('createTwinContext', () => {
  test("GETs the Cluster API copy of a synchronizer's removal on the Machine API copy", async () => {
    const twin = { kind: 'Machine', metadata: { name: 'worker-0' } };
    const { twins, paths } = context(async () => ({ status: 200, body: twin }));
    assert.deepEqual(await twins.gather(REMOVAL), { twin: { found: true, object: twin } });
    assert.deepEqual(paths, ['/apis/cluster.x-k8s.io/v1beta1/namespaces/openshift-cluster-api/machines/worker-0']);
  });

  test('anyone else: no request, no promise', () => {
    const { twins, paths } = context(async () => ({ status: 200, body: {} }));
    assert.equal(twins.gather({ ...REMOVAL, userInfo: { username: 'alice', groups: [] } }), undefined);
    assert.deepEqual(paths, []);
  });

  test('a CREATE in a migration namespace by anyone but the synchronizer or the machine controller: one GET', async () => {
    const create: ReviewInput = {
      ...REMOVAL,
      operation: 'CREATE',
      name: '',
      oldObject: null,
      userInfo: { username: 'alice', groups: [] },
    };
    const { twins, paths } = context(async () => ({ status: 404, body: { message: 'not found' } }));
    const out = await twins.gather(create);
    assert.equal(out?.twin?.found === false && out.twin.reason, 'NotFound');
    assert.deepEqual(paths, ['/apis/cluster.x-k8s.io/v1beta1/namespaces/openshift-cluster-api/machines/worker-0']);
    const controller = 'system:serviceaccount:openshift-machine-api:machine-api-controllers';
    assert.equal(twins.gather({ ...create, userInfo: { username: controller, groups: [] } }), undefined);
    assert.equal(twins.gather({ ...create, namespace: 'team-a' }), undefined);
  });

  test('404, an error status, a thrown GET and no answer each say why', async () => {
    const cases: Array<[ApiGet, string]> = [
      [async () => ({ status: 404, body: { message: 'not found' } }), 'NotFound'],
      [async () => ({ status: 403, body: { message: 'forbidden' } }), 'Error'],
      [() => Promise.reject(new Error('ECONNREFUSED')), 'Error'],
      [() => new Promise(() => undefined), 'Timeout'],
    ];
    for (const [get, reason] of cases) {
      const out = await context(get, 20).twins.gather(REMOVAL);
      assert.equal(out?.twin?.found, false);
      assert.equal(out?.twin?.found === false && out.twin.reason, reason);
    }
  });
});
