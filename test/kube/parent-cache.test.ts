// The real plumbing against an in-process fake API server: kubeconfig credentials on every GET, the cache's
// list and watch on the parent's collection path, a restart after a failed list, and cache hits without GETs.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, mock, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import type { ParentRequest } from '../../src/core/children.js';
import { createParentLookup, type ParentLookup } from '../../src/infrastructure/kube/parents.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { eventually } from '../helpers/wait.js';

// Long, so that lookups over the loopback never race a busy machine's clock; the budget test runs it on mock time.
const BUDGET_MS = 30_000;
const KIND = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', resource: 'virtualmachines', namespaced: true };
const req = (name: string): ParentRequest => ({
  ...KIND,
  key: `kubevirt.io/v1/VirtualMachine/vms/${name}`,
  namespace: 'vms',
  name,
});
const vm = (name: string, uid: string, resourceVersion: string) => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachine',
  metadata: { name, namespace: 'vms', uid, resourceVersion },
  spec: { runStrategy: 'Halted' },
});

describe('watch-backed parent cache against a fake API server', () => {
  let server: Server;
  let lookup: ParentLookup;
  const seen: string[] = [];
  const auth = new Set<string>();
  let lists = 0;
  let watchStream: ServerResponse | undefined;
  let watchedFrom: string | null = null;
  let stuckAsked = false;
  let hungUpOn = false;

  before(async () => {
    server = createServer((request: IncomingMessage, res: ServerResponse) => {
      const url = new URL(request.url ?? '/', 'http://x');
      auth.add(request.headers.authorization ?? '');
      seen.push(`${url.pathname}${url.searchParams.get('watch') ? '?watch' : ''}`);
      res.setHeader('content-type', 'application/json');
      if (url.pathname === '/apis/kubevirt.io/v1/virtualmachines' && url.searchParams.get('watch') === 'true') {
        res.writeHead(200);
        res.flushHeaders();
        watchStream = res;
        watchedFrom = url.searchParams.get('resourceVersion');
        return;
      }
      if (url.pathname === '/apis/kubevirt.io/v1/virtualmachines') {
        // The first list fails, as when RBAC is still being applied: the cache must retry on its own.
        if (lists++ === 0) {
          res.writeHead(500).end(JSON.stringify({ kind: 'Status', message: 'etcdserver: leader changed' }));
          return;
        }
        res.end(
          JSON.stringify({
            kind: 'VirtualMachineList',
            apiVersion: 'kubevirt.io/v1',
            metadata: { resourceVersion: '100' },
            items: [vm('testvm', 'uid-testvm', '90')],
          }),
        );
        return;
      }
      if (url.pathname === '/apis/kubevirt.io/v1/namespaces/vms/virtualmachines/stuck') {
        // An API server that accepted the request and never answers (etcd trouble): the lookup must give up.
        stuckAsked = true;
        request.on('close', () => {
          hungUpOn = true;
        });
        return;
      }
      if (url.pathname === '/apis/kubevirt.io/v1/namespaces/vms/virtualmachines/fresh') {
        res.end(JSON.stringify(vm('fresh', 'uid-fresh', '120')));
        return;
      }
      res.writeHead(404).end(
        JSON.stringify({
          kind: 'Status',
          message: `virtualmachines.kubevirt.io "${url.pathname.split('/').pop()}" not found`,
        }),
      );
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
    lookup = createParentLookup({ kubeConfig: kc, kinds: [KIND], budgetMs: BUDGET_MS, logger: silentLogger() });
  });

  after(() => {
    lookup.stop();
    server.closeAllConnections();
    server.close();
  });

  test("the cache syncs after a failed first list, and watches from the list's resourceVersion", async () => {
    await eventually(() => lookup.synced(), 'sync');
    await eventually(() => watchStream !== undefined, 'watch');
    assert.ok(lists >= 2);
    assert.equal(watchedFrom, '100');
    assert.deepEqual([...auth], ['Bearer sa-token']);
  });

  test('a cached parent needs no GET; a missing one is asked for and NotFound', async () => {
    seen.length = 0;
    const facts = await lookup.lookup([req('testvm'), req('nothere')]);
    assert.deepEqual(facts[req('testvm').key], { found: true, uid: 'uid-testvm', deleting: false, namespaced: true });
    assert.deepEqual(facts[req('nothere').key], {
      found: false,
      reason: 'NotFound',
      message:
        'GET /apis/kubevirt.io/v1/namespaces/vms/virtualmachines/nothere: HTTP 404: virtualmachines.kubevirt.io "nothere" not found',
    });
    assert.deepEqual(seen, ['/apis/kubevirt.io/v1/namespaces/vms/virtualmachines/nothere']);
  });

  test('a parent the cache has not seen yet is found by GET', async () => {
    const facts = await lookup.lookup([req('fresh')]);
    assert.deepEqual(facts[req('fresh').key], { found: true, uid: 'uid-fresh', deleting: false, namespaced: true });
  });

  test('an API server that never answers: Timeout at the budget, not before, and the request is abandoned', async () => {
    // The budget's timer on mock time; the request itself goes over the network.
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let facts: Awaited<ReturnType<ParentLookup['lookup']>> | undefined;
      void lookup.lookup([req('stuck')]).then((f) => (facts = f));
      await eventually(() => stuckAsked, 'the request to arrive');
      mock.timers.tick(BUDGET_MS - 1);
      await new Promise((r) => setImmediate(r));
      assert.equal(facts, undefined);
      assert.equal(hungUpOn, false);
      mock.timers.tick(1);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(facts?.[req('stuck').key], {
        found: false,
        reason: 'Timeout',
        message: `no answer within ${BUDGET_MS} ms`,
      });
    } finally {
      mock.timers.reset();
    }
    await eventually(() => hungUpOn, 'the abandoned request to close');
  });

  test('watch events keep the cache current: a deletion in progress is seen without a GET', async () => {
    const deleting = vm('testvm', 'uid-testvm', '130');
    (deleting.metadata as Record<string, unknown>)['deletionTimestamp'] = '2026-11-21T11:00:00Z';
    watchStream?.write(`${JSON.stringify({ type: 'MODIFIED', object: deleting })}\n`);
    seen.length = 0;
    let fact;
    await eventually(async () => {
      fact = (await lookup.lookup([req('testvm')]))[req('testvm').key];
      return fact?.found === true && fact.deleting;
    }, 'the watch event to reach the cache');
    assert.deepEqual(fact, { found: true, uid: 'uid-testvm', deleting: true, namespaced: true });
    assert.deepEqual(seen, []);
  });
});
