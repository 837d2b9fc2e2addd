// src/infrastructure/kube/list-watch.ts against a real kube-apiserver: a cache of ConfigMaps follows creations, edits and deletions,
// resumes when the API server ends its watch (timeoutSeconds, 2 s here), and relists after 410 when its
// resourceVersion has been compacted away while it could not reach the API server. ConfigMaps' watch cache is off
// (--watch-cache-sizes=configmaps#0) so watches are served by etcd, which compacts every 2 s here
// (--etcd-compaction-interval): the 410 is etcd's, sent as an ERROR event, as a cluster sends it. Last, the defect
// client-node 1.4's informer had: a watch whose connection goes silent (a TCP proxy that stops forwarding, as a dropped
// NAT entry does; its sockets stay open, so keepalive would not notice) is given up at the deadline and resumed.
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { kubeConfigAccess, pooledGet, type PooledGet } from '../../src/infrastructure/kube/api-requests.js';
import { watchCollection, type WatchedCollection } from '../../src/infrastructure/kube/list-watch.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { startControlPlane, type ControlPlane } from '../../testing/control-plane/control-plane.js';
import { rawRequest } from '../../testing/control-plane/http.js';
import { pollUntil } from '../../testing/control-plane/processes.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';

const settings = readControlPlaneSettings();
const NS = 'watch-e2e';
const COLLECTION = `/api/v1/namespaces/${NS}/configmaps`;
const WAIT_MS = 60_000;

describe('a watched collection against kube-apiserver', () => {
  let plane: ControlPlane;
  let pool: PooledGet;
  let cache: WatchedCollection;
  /** While true, every request of the cache fails as if the API server were unreachable. */
  let partitioned = false;
  let cutOpenWatch = (): void => undefined;
  const lists: string[] = [];
  const watches: { from: string; status?: number }[] = [];
  /** ERROR events with 410 the API server sent the cache. */
  let gone = 0;

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ metadata: { resourceVersion: string } }> {
    const res = await rawRequest({
      url: `${plane.server}${path}`,
      method,
      ca: plane.caPem,
      token: plane.identities.admin.token,
      ...(body === undefined ? {} : { body }),
      timeoutMs: 30_000,
    });
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: HTTP ${res.status}: ${res.body}`);
    return JSON.parse(res.body) as { metadata: { resourceVersion: string } };
  }
  const create = (name: string, data: Record<string, string>) => call('POST', COLLECTION, { metadata: { name }, data });
  const dataOf = (name: string) => cache.get(name, NS)?.['data'];

  before(async () => {
    plane = await startControlPlane({
      settings,
      crds: { name: 'watch', files: [] },
      apiserverArgs: ['--watch-cache-sizes=configmaps#0', '--etcd-compaction-interval=2s'],
    });
    await call('POST', '/api/v1/namespaces', { metadata: { name: NS } });
    pool = pooledGet(kubeConfigAccess(plane.kubeConfig('admin')));
    const unreachable = (): Promise<never> => Promise.reject(new Error('connect ECONNREFUSED (partitioned)'));
    cache = watchCollection({
      transport: {
        get: (path, signal) => {
          if (partitioned) return unreachable();
          if (!path.includes('continue=')) lists.push(path);
          return pool.get(path, signal);
        },
        stream: async (path, signal, on) => {
          if (partitioned) return unreachable();
          const watch: { from: string; status?: number } = {
            from: new URL(path, 'http://x').searchParams.get('resourceVersion') ?? '',
          };
          watches.push(watch);
          const cut = new AbortController();
          cutOpenWatch = () => cut.abort(new Error('connection reset (partitioned)'));
          const res = await pool.stream(path, AbortSignal.any([signal, cut.signal]), {
            open: () => on.open(),
            line: (text) => {
              if (/"type":"ERROR".*"code":410/.test(text)) gone++;
              on.line(text);
            },
          });
          watch.status = res.status;
          return res;
        },
      },
      path: COLLECTION,
      log: silentLogger(),
      what: 'e2e ConfigMaps',
      watchTimeoutSeconds: 2,
      backoffMs: { min: 100, max: 500 },
    });
    await pollUntil('the first list', WAIT_MS, async () => (cache.synced() ? true : undefined));
  });

  after(async () => {
    cache?.stop();
    pool?.close();
    await plane?.stop();
  });

  test('follows creations, edits and deletions', async () => {
    await create('a', { v: '1' });
    await pollUntil('a created', WAIT_MS, async () => (dataOf('a') ? true : undefined));
    await call('PUT', `${COLLECTION}/a`, { metadata: { name: 'a' }, data: { v: '2' } });
    await pollUntil('a edited', WAIT_MS, async () => ((dataOf('a') as { v?: string })?.v === '2' ? true : undefined));
    await call('DELETE', `${COLLECTION}/a`);
    await pollUntil('a deleted', WAIT_MS, async () => (cache.get('a', NS) === undefined ? true : undefined));
    assert.equal(cache.healthy(), true);
  });

  test('resumes after the API server ends its watch', async () => {
    const ended = watches.filter((w) => w.status === 200).length;
    await pollUntil('the API server to end a watch (timeoutSeconds 2)', WAIT_MS, async () =>
      watches.filter((w) => w.status === 200).length > ended ? true : undefined,
    );
    await create('b', { v: '1' });
    // Not through the watch that ended: through the one resumed from its last resourceVersion, or (compacted meanwhile,
    // every 2 s here) through a relist after 410.
    await pollUntil('b seen through a later watch', WAIT_MS, async () => (dataOf('b') ? true : undefined));
    assert.equal(cache.healthy(), true);
  });

  test('relists after 410 when its resourceVersion was compacted while it could not reach the API server', async () => {
    partitioned = true;
    cutOpenWatch();
    // While it is away: b goes, c comes, and etcd compacts past where the cache would resume. The cache resumes from
    // the last event it applied, which may be newer than its watch's start (b's creation); c's is newer than either,
    // so once a watch from c's resourceVersion gets 410, so does the cache's.
    await call('DELETE', `${COLLECTION}/b`);
    const past = (await create('c', { v: '1' })).metadata.resourceVersion;
    await pollUntil("etcd to compact past the cache's resourceVersion", WAIT_MS, async () => {
      const res = await rawRequest({
        url: `${plane.server}${COLLECTION}?watch=true&resourceVersion=${past}&timeoutSeconds=1`,
        ca: plane.caPem,
        token: plane.identities.admin.token,
        timeoutMs: 30_000,
      });
      // The API server answers 200, then one ERROR event with the Status 410 (Expired).
      return res.body.includes('"code":410') ? true : undefined;
    });
    const [listed, goneBefore] = [lists.length, gone];
    partitioned = false;
    await pollUntil('c seen and b gone', WAIT_MS, async () =>
      dataOf('c') && cache.get('b', NS) === undefined ? true : undefined,
    );
    assert.ok(gone > goneBefore, 'the resume from the compacted resourceVersion got an ERROR event with 410');
    assert.ok(lists.length > listed, 'relisted');
    await pollUntil('healthy again', WAIT_MS, async () => (cache.healthy() ? true : undefined));
  });

  test('a watch whose connection goes silent is given up at the deadline and resumed', async () => {
    // A TCP proxy in front of the API server; freeze() stops forwarding on the connections open now, without closing
    // them (new connections pass).
    const open = new Set<[Socket, Socket]>();
    let closedByCache = 0;
    const proxy = createServer((client) => {
      const upstream = connect(Number(new URL(plane.server).port), '127.0.0.1');
      const pair: [Socket, Socket] = [client, upstream];
      open.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => {
        if (!open.has(pair)) closedByCache++;
        upstream.destroy();
      });
      upstream.on('close', () => client.destroy());
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
    });
    const freeze = (): void => {
      for (const pair of open) {
        const [client, upstream] = pair;
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
      open.clear();
    };
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const viaProxy = pooledGet({
      ...kubeConfigAccess(plane.kubeConfig('admin')),
      server: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    });
    const quiet = watchCollection({
      transport: viaProxy,
      path: COLLECTION,
      log: silentLogger(),
      what: 'e2e ConfigMaps through a proxy',
      // The API server's end of the watch cannot pass a frozen proxy either: only the deadline can help.
      watchTimeoutSeconds: 600,
      inactivityMs: 3_000,
    });
    try {
      await pollUntil('the proxied cache to list', WAIT_MS, async () => (quiet.synced() ? true : undefined));
      await create('d', { v: '1' });
      await pollUntil('d seen through the proxy', WAIT_MS, async () => (quiet.get('d', NS) ? true : undefined));
      freeze();
      await create('e', { v: '1' });
      await pollUntil('e seen through a new watch', WAIT_MS, async () => (quiet.get('e', NS) ? true : undefined));
      assert.ok(closedByCache >= 1, 'the silent connection was closed by the cache');
    } finally {
      quiet.stop();
      viaProxy.close();
      proxy.close();
    }
  });
});
