// The real lister and service account lookup against a fake API server: limit/continue paging (the next page
// asked for in advance, over one kept-alive connection), namespaces, expired continue tokens, and every failure
// turned into a clear cluster error.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { serviceAccountLookup } from '../../src/infrastructure/kube/connect.js';
import { loadKubeConfig } from '../../src/infrastructure/kube/client.js';
import { kubeConfigAccess, type ClusterAccess } from '../../src/infrastructure/kube/api-requests.js';
import { createLister, listPath, PAGE_SIZE } from '../../src/infrastructure/kube/lister.js';
import type { ResourceRef } from '../../src/core/resources.js';
import { CrdNotInstalled } from '../../src/infrastructure/kube/types.js';
import { machine } from '../fixtures/openshift.js';
import { eventually } from '../helpers/wait.js';
import { useFakeApiServer } from './fake-apiserver.js';

const MACHINES: ResourceRef = {
  group: 'machine.openshift.io',
  version: 'v1beta1',
  plural: 'machines',
  namespaced: true,
};

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('kube lister and client', () => {
  const fake = useFakeApiServer('hookkeeper-kube-');
  // Credentials as client-node loads them (in-cluster, exec plugins); access.test.ts covers connect()'s own reader.
  const viaClientNode = (): ClusterAccess => kubeConfigAccess(loadKubeConfig({ kubeconfig: fake.kubeconfig }));
  beforeEach(() => {
    fake.api.objects.set('machine.openshift.io/v1beta1/machines', [
      ...['a', 'b', 'c', 'd'].map((n) => machine({ name: n })),
      machine({ name: 'e', namespace: 'other' }),
    ]);
  });

  test('pages with limit and continue until the API server stops giving a token', async () => {
    const lister = createLister(viaClientNode(), { pageSize: 2 });
    const pages = await collect(lister.list(MACHINES));
    assert.deepEqual(
      pages.map((p) => p.map((m) => (m['metadata'] as { name: string }).name)),
      [['a', 'b'], ['c', 'd'], ['e']],
    );
    const sortedQuery = (r: string): string =>
      r.replace(/\?(.*)$/, (_, q: string) => `?${q.split('&').sort().join('&')}`);
    assert.deepEqual(fake.api.requests.map(sortedQuery), [
      '/apis/machine.openshift.io/v1beta1/machines?limit=2',
      '/apis/machine.openshift.io/v1beta1/machines?continue=2&limit=2',
      '/apis/machine.openshift.io/v1beta1/machines?continue=4&limit=2',
    ]);
  });

  test('pages of 500 by default; one namespace through the namespaced path', async () => {
    const pages = await collect(createLister(viaClientNode()).list(MACHINES, 'other'));
    assert.equal(PAGE_SIZE, 500);
    assert.equal(pages.length, 1);
    assert.equal(pages[0]?.length, 1);
    assert.deepEqual(fake.api.requests, ['/apis/machine.openshift.io/v1beta1/namespaces/other/machines?limit=500']);
  });

  test('the next page is asked for before the caller is done with this one', async () => {
    fake.api.listDelayMs = 20;
    const pages = createLister(viaClientNode(), { pageSize: 2 }).list(MACHINES)[Symbol.asyncIterator]();
    const first = await pages.next();
    assert.equal(first.value?.length, 2);
    // The caller is still on page one; the API server has been asked for page two.
    await eventually(() => fake.api.requests.length === 2, 'the second page asked for', 2);
    assert.match(fake.api.requests[1] ?? '', /continue=2/);
    assert.equal(fake.api.requests.length, 2, 'only one page ahead');
    const rest: number[] = [];
    for (let p = await pages.next(); !p.done; p = await pages.next()) rest.push(p.value.length);
    assert.deepEqual(rest, [2, 1]);
  });

  test('pages of one list share a kept-alive connection, gzipped as kubectl asks for them', async () => {
    const before = fake.api.connections;
    const pages = await collect(createLister(viaClientNode(), { pageSize: 1 }).list(MACHINES));
    assert.equal(pages.length, 5);
    assert.equal(fake.api.connections - before, 1);
  });

  test('a caller that stops early: the page asked for in advance is abandoned, nothing is left failing', async () => {
    fake.api.listDelayMs = 50;
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown): void => {
      unhandled.push(err);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      for await (const page of createLister(viaClientNode(), { pageSize: 2 }).list(MACHINES)) {
        assert.equal(page.length, 2);
        // Page two is on its way (the server holds it 50 ms) when the caller leaves.
        await eventually(() => fake.api.requests.length === 2, 'the second page asked for', 2);
        break;
      }
      // The abandoned page's connection is closed: by then its request has failed, and been handled.
      await eventually(() => fake.api.closedConnections === fake.api.connections, 'the connection to close', 2);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(unhandled, []);
      assert.equal(fake.api.requests.length, 2, 'nothing asked for after the caller left');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('410 Expired with a token to go on: the list continues from the current state, each object once', async () => {
    fake.api.expired.set('2', 'fresh-2');
    const pages = await collect(createLister(viaClientNode(), { pageSize: 2 }).list(MACHINES));
    assert.deepEqual(
      pages.map((p) => p.map((m) => (m['metadata'] as { name: string }).name)),
      [['a', 'b'], ['c', 'd'], ['e']],
    );
    assert.deepEqual(
      fake.api.requests.map((r) => new URL(r, 'http://x').searchParams.get('continue')),
      [null, '2', 'fresh-2', '4'],
    );
  });

  test('410 Expired without a token, or twice in a row: a cluster error that says to run the audit again', async () => {
    const lister = createLister(viaClientNode(), { pageSize: 2 });
    const again = (err: unknown): boolean =>
      err instanceof AppError &&
      err.code === 'CLUSTER' &&
      err.message ===
        'cannot list machines.machine.openshift.io: the list changed too much while paging (410 Gone: the continue token expired); run the audit again';
    fake.api.expired.set('2', undefined);
    await assert.rejects(collect(lister.list(MACHINES)), again);
    fake.api.expired.set('2', 'fresh-2');
    fake.api.expired.set('fresh-2', 'fresh-2');
    await assert.rejects(collect(lister.list(MACHINES)), again);
  });

  test('a page that does not come in time is a cluster error, not a hang', async () => {
    fake.api.listDelayMs = 300;
    const lister = createLister(viaClientNode(), { pageTimeoutMs: 50 });
    await assert.rejects(
      collect(lister.list(MACHINES)),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'CLUSTER' &&
        err.message ===
          `cannot list machines.machine.openshift.io: cannot reach the API server at ${fake.api.url}: no answer within 0.05 s`,
    );
  });

  test('list paths: groups under /apis, the core group under /api, the namespace escaped, the token as a query', () => {
    assert.equal(
      listPath(MACHINES, undefined, 500, undefined),
      '/apis/machine.openshift.io/v1beta1/machines?limit=500',
    );
    assert.equal(
      listPath(MACHINES, 'a b', 10, 'eyJ2Ijoi+/='),
      '/apis/machine.openshift.io/v1beta1/namespaces/a%20b/machines?limit=10&continue=eyJ2Ijoi%2B%2F%3D',
    );
    assert.equal(
      listPath({ group: '', version: 'v1', plural: 'nodes', namespaced: false }, 'ignored', 1, undefined),
      '/api/v1/nodes?limit=1',
    );
  });

  test('404: the CRD is not installed', async () => {
    const lister = createLister(viaClientNode());
    await assert.rejects(
      collect(lister.list({ ...MACHINES, group: 'cluster.x-k8s.io' })),
      (err: unknown) =>
        err instanceof CrdNotInstalled &&
        err.code === 'CLUSTER' &&
        err.message === 'machines.cluster.x-k8s.io/v1beta1 is not served: its CRD is not installed',
    );
  });

  test('401, 403 and an unreachable server are cluster errors that say what happened', async () => {
    const lister = createLister(viaClientNode());
    fake.api.refuse = { code: 401, message: 'Unauthorized' };
    await assert.rejects(
      collect(lister.list(MACHINES)),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'CLUSTER' &&
        err.message ===
          `cannot list machines.machine.openshift.io: unauthorized (401): ${fake.api.url} rejected the credentials; log in again or check the token in the kubeconfig`,
    );
    const denied =
      'machines.machine.openshift.io is forbidden: User "auditor" cannot list resource "machines" in API group "machine.openshift.io" at the cluster scope';
    fake.api.refuse = { code: 403, message: denied };
    await assert.rejects(
      collect(lister.list(MACHINES)),
      (err: unknown) =>
        err instanceof AppError &&
        err.message === `cannot list machines.machine.openshift.io: forbidden (403): ${denied}`,
    );
    const kc = loadKubeConfig({ kubeconfig: fake.kubeconfig });
    const cluster = kc.getCurrentCluster();
    assert.ok(cluster);
    kc.clusters = [{ ...cluster, server: 'http://127.0.0.1:1' }];
    await assert.rejects(
      collect(createLister(kubeConfigAccess(kc)).list(MACHINES)),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'CLUSTER' &&
        /^cannot list machines\.machine\.openshift\.io: cannot reach the API server at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/.test(
          err.message,
        ),
    );
  });

  test('service account lookup: found, 404 -> gone, anything else -> cluster error', async () => {
    fake.api.serviceAccounts.add('openshift-etcd-operator/etcd-operator');
    const exists = serviceAccountLookup(viaClientNode());
    assert.equal(await exists('openshift-etcd-operator', 'etcd-operator'), true);
    assert.equal(await exists('openshift-etcd-operator', 'gone'), false);
    fake.api.refuse = { code: 403, message: 'serviceaccounts "x" is forbidden' };
    await assert.rejects(
      exists('ns', 'x'),
      /cannot read service account ns\/x: forbidden \(403\): serviceaccounts "x" is forbidden/,
    );
  });

  test('kubeconfig: --context must exist and name a cluster; an unreadable file is a usage error', () => {
    assert.equal(
      loadKubeConfig({ kubeconfig: fake.kubeconfig, context: 'fake' }).getCurrentCluster()?.server,
      fake.api.url,
    );
    assert.throws(
      () => loadKubeConfig({ kubeconfig: fake.kubeconfig, context: 'nope' }),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'USAGE' &&
        e.message === '--context nope: no such context (have: fake, elsewhere)',
    );
    assert.throws(() => loadKubeConfig({ kubeconfig: fake.kubeconfig, context: 'elsewhere' }), /no current cluster/);
    assert.throws(
      () => loadKubeConfig({ kubeconfig: join(fake.dir, 'missing') }),
      (e: unknown) =>
        e instanceof AppError && e.code === 'USAGE' && /^cannot load kubeconfig .*missing: ENOENT/.test(e.message),
    );
  });
});
