// The real lister and service account lookup (client-node 1.4) against a fake API server: limit/continue paging,
// namespaces, and every failure turned into a clear cluster error.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { loadKubeConfig, serviceAccountLookup } from '../../src/kube/client.js';
import { createLister, PAGE_SIZE } from '../../src/kube/lister.js';
import { CrdNotInstalled, type ResourceRef } from '../../src/kube/types.js';
import { machine } from '../fixtures/openshift.js';
import { useFakeApiServer } from './fake-apiserver.js';

const MACHINES: ResourceRef = { group: 'machine.openshift.io', version: 'v1beta1', plural: 'machines', namespaced: true };

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('kube lister and client', () => {
  const fake = useFakeApiServer('hookkeeper-kube-');
  beforeEach(() => {
    fake.api.objects.set('machine.openshift.io/v1beta1/machines', [
      ...['a', 'b', 'c', 'd'].map((n) => machine({ name: n })),
      machine({ name: 'e', namespace: 'other' }),
    ]);
  });

  test('pages with limit and continue until the API server stops giving a token', async () => {
    const lister = createLister(loadKubeConfig({ kubeconfig: fake.kubeconfig }), { pageSize: 2 });
    const pages = await collect(lister.list(MACHINES));
    assert.deepEqual(pages.map((p) => p.map((m) => (m['metadata'] as { name: string }).name)), [['a', 'b'], ['c', 'd'], ['e']]);
    const sortedQuery = (r: string): string => r.replace(/\?(.*)$/, (_, q: string) => `?${q.split('&').sort().join('&')}`);
    assert.deepEqual(fake.api.requests.map(sortedQuery), [
      '/apis/machine.openshift.io/v1beta1/machines?limit=2',
      '/apis/machine.openshift.io/v1beta1/machines?continue=2&limit=2',
      '/apis/machine.openshift.io/v1beta1/machines?continue=4&limit=2',
    ]);
  });

  test('pages of 500 by default; one namespace through the namespaced path', async () => {
    const pages = await collect(createLister(loadKubeConfig({ kubeconfig: fake.kubeconfig })).list(MACHINES, 'other'));
    assert.equal(PAGE_SIZE, 500);
    assert.equal(pages.length, 1);
    assert.equal(pages[0]?.length, 1);
    assert.deepEqual(fake.api.requests, ['/apis/machine.openshift.io/v1beta1/namespaces/other/machines?limit=500']);
  });

  test('404: the CRD is not installed', async () => {
    const lister = createLister(loadKubeConfig({ kubeconfig: fake.kubeconfig }));
    await assert.rejects(collect(lister.list({ ...MACHINES, group: 'cluster.x-k8s.io' })), (err: unknown) => err instanceof CrdNotInstalled && err.code === 'CLUSTER' && err.message === 'machines.cluster.x-k8s.io/v1beta1 is not served: its CRD is not installed');
  });

  test('401, 403 and an unreachable server are cluster errors that say what happened', async () => {
    const lister = createLister(loadKubeConfig({ kubeconfig: fake.kubeconfig }));
    fake.api.refuse = { code: 401, message: 'Unauthorized' };
    await assert.rejects(collect(lister.list(MACHINES)), (err: unknown) => err instanceof AppError && err.code === 'CLUSTER'
      && err.message === `cannot list machines.machine.openshift.io: unauthorized (401): ${fake.api.url} rejected the credentials; log in again or check the token in the kubeconfig`);
    const denied = 'machines.machine.openshift.io is forbidden: User "auditor" cannot list resource "machines" in API group "machine.openshift.io" at the cluster scope';
    fake.api.refuse = { code: 403, message: denied };
    await assert.rejects(collect(lister.list(MACHINES)), (err: unknown) => err instanceof AppError && err.message === `cannot list machines.machine.openshift.io: forbidden (403): ${denied}`);
    const kc = loadKubeConfig({ kubeconfig: fake.kubeconfig });
    const cluster = kc.getCurrentCluster();
    assert.ok(cluster);
    kc.clusters = [{ ...cluster, server: 'http://127.0.0.1:1' }];
    await assert.rejects(collect(createLister(kc).list(MACHINES)), (err: unknown) => err instanceof AppError && err.code === 'CLUSTER'
      && /^cannot list machines\.machine\.openshift\.io: cannot reach the API server at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/.test(err.message));
  });

  test('service account lookup: found, 404 -> gone, anything else -> cluster error', async () => {
    fake.api.serviceAccounts.add('openshift-etcd-operator/etcd-operator');
    const exists = serviceAccountLookup(loadKubeConfig({ kubeconfig: fake.kubeconfig }));
    assert.equal(await exists('openshift-etcd-operator', 'etcd-operator'), true);
    assert.equal(await exists('openshift-etcd-operator', 'gone'), false);
    fake.api.refuse = { code: 403, message: 'serviceaccounts "x" is forbidden' };
    await assert.rejects(exists('ns', 'x'), /cannot read service account ns\/x: forbidden \(403\): serviceaccounts "x" is forbidden/);
  });

  test('kubeconfig: --context must exist and name a cluster; an unreadable file is a usage error', () => {
    assert.equal(loadKubeConfig({ kubeconfig: fake.kubeconfig, context: 'fake' }).getCurrentCluster()?.server, fake.api.url);
    assert.throws(() => loadKubeConfig({ kubeconfig: fake.kubeconfig, context: 'nope' }), (e: unknown) => e instanceof AppError && e.code === 'USAGE' && e.message === '--context nope: no such context (have: fake, elsewhere)');
    assert.throws(() => loadKubeConfig({ kubeconfig: fake.kubeconfig, context: 'elsewhere' }), /no current cluster/);
    assert.throws(() => loadKubeConfig({ kubeconfig: join(fake.dir, 'missing') }), (e: unknown) => e instanceof AppError && e.code === 'USAGE' && /^cannot load kubeconfig .*missing: ENOENT/.test(e.message));
  });
});
