// The RBAC index's plumbing against an in-process fake API server: the four RBAC collections listed with the
// kubeconfig's credentials and watched from their lists' resourceVersions, not ready until all have listed (one
// fails first and is retried), and kept current by watch events.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { createRbacIndex, type RbacIndex } from '../../src/infrastructure/kube/rbac-index.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { eventually } from '../helpers/wait.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const grant = (names: string[]) => ({
  apiGroups: ['hookkeeper.io'],
  resources: ['hookowners'],
  verbs: ['remove'],
  resourceNames: names,
});
const subjects = [{ kind: 'ServiceAccount', name: 'csi-controller', namespace: 'storage' }];

const LISTS: Record<string, unknown[]> = {
  clusterroles: [{ metadata: { name: 'storage-hook-owner', resourceVersion: '5' }, rules: [grant(['team/storage'])] }],
  roles: [{ metadata: { name: 'db', namespace: 'ns1', resourceVersion: '6' }, rules: [grant(['team/db'])] }],
  clusterrolebindings: [
    {
      metadata: { name: 'storage-hook-owner', resourceVersion: '7' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'storage-hook-owner' },
      subjects,
    },
  ],
  rolebindings: [],
};

describe('RBAC index against a fake API server', () => {
  let server: Server;
  let index: RbacIndex;
  const auth = new Set<string>();
  const lists = new Map<string, number>();
  const watches = new Map<string, { res: ServerResponse; from: string | null }>();

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://x');
      auth.add(req.headers.authorization ?? '');
      res.setHeader('content-type', 'application/json');
      const plural = url.pathname.startsWith(`${RBAC}/`) ? url.pathname.slice(RBAC.length + 1) : '';
      const items = LISTS[plural];
      if (!items) {
        res.writeHead(404).end(JSON.stringify({ kind: 'Status', message: 'not found' }));
        return;
      }
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200);
        res.flushHeaders();
        watches.set(plural, { res, from: url.searchParams.get('resourceVersion') });
        return;
      }
      const n = (lists.get(plural) ?? 0) + 1;
      lists.set(plural, n);
      // The first list of bindings fails, as while RBAC is being rolled out: the index must retry on its own.
      if (plural === 'clusterrolebindings' && n === 1) {
        res.writeHead(500).end(JSON.stringify({ kind: 'Status', message: 'etcdserver: leader changed' }));
        return;
      }
      res.end(JSON.stringify({ kind: 'List', metadata: { resourceVersion: '100' }, items }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'fake', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
      ],
      users: [{ name: 'hookkeeper', token: 'sa-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'hookkeeper' }],
      currentContext: 'fake',
    });
    index = createRbacIndex({ kubeConfig: kc, logger: silentLogger() });
  });

  after(() => {
    index.stop();
    server.closeAllConnections();
    server.close();
  });

  test('not ready while a collection has not listed; ready once all four have, each watched from its list', async () => {
    assert.equal(index.ready(), false);
    await eventually(() => (lists.get('clusterrolebindings') ?? 0) >= 1, 'the retried list of bindings');
    // The bindings' first list failed: the roles are in, but the index is not ready and protects nothing yet.
    assert.equal(index.ready(), false);
    assert.equal(index.protectedIn('team/storage', 'ns1'), false);
    await eventually(() => index.ready(), 'ready');
    await eventually(() => watches.size === 4, 'four watches');
    assert.equal(lists.get('clusterrolebindings'), 2);
    assert.deepEqual(
      [...watches.values()].map((w) => w.from),
      ['100', '100', '100', '100'],
    );
    assert.deepEqual([...auth], ['Bearer sa-token']);
    assert.equal(index.healthy(), true);
  });

  test('answers from the lists', () => {
    assert.equal(index.protectedIn('team/storage', 'ns1'), true);
    assert.equal(index.protectedIn('team/storage', undefined), true);
    assert.equal(index.protectedIn('team/db', 'ns1'), false, 'the Role is not bound');
    assert.equal(index.protectedIn('', 'ns1'), false);
    assert.deepEqual(
      index.subjectsFor('team/storage', 'ns1').map((s) => `${s.kind} ${s.namespace}/${s.name}`),
      ['ServiceAccount storage/csi-controller'],
    );
  });

  test('watch events keep it current: a RoleBinding added, then deleted', async () => {
    const binding = {
      metadata: { name: 'db', namespace: 'ns1', resourceVersion: '120' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'db' },
      subjects,
    };
    watches.get('rolebindings')?.res.write(`${JSON.stringify({ type: 'ADDED', object: binding })}\n`);
    await eventually(() => index.protectedIn('team/db', 'ns1'), 'the binding');
    assert.equal(index.protectedIn('team/db', 'ns2'), false);
    watches
      .get('rolebindings')
      ?.res.write(
        `${JSON.stringify({ type: 'DELETED', object: { ...binding, metadata: { ...binding.metadata, resourceVersion: '121' } } })}\n`,
      );
    await eventually(() => !index.protectedIn('team/db', 'ns1'), 'the binding to go');
  });

  test('a role edited to drop an owner stops protecting it', async () => {
    const edited = { metadata: { name: 'storage-hook-owner', resourceVersion: '130' }, rules: [grant(['team/other'])] };
    watches.get('clusterroles')?.res.write(`${JSON.stringify({ type: 'MODIFIED', object: edited })}\n`);
    await eventually(() => index.protectedIn('team/other', 'ns1'), 'the edit');
    assert.equal(index.protectedIn('team/storage', 'ns1'), false);
  });
});
