// The watch over real HTTP against an in-process fake API server: pooledGet's stream (lines as they arrive, other
// answers read whole, an abort that closes the connection, a body cut short), and the defect it fixes: an RBAC index
// whose watches go silent (a dropped NAT entry, a half-open connection) resumes them at the deadline, where
// client-node 1.4's informer waited for TCP keepalive while it reported healthy.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, mock, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { pooledGet, type ClusterAccess, type PooledGet } from '../../src/infrastructure/kube/api-requests.js';
import { createRbacIndex } from '../../src/infrastructure/kube/rbac-index.js';
import { INACTIVITY_MS } from '../../src/infrastructure/kube/list-watch.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { eventually } from '../helpers/wait.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

describe('watches over HTTP', () => {
  let server: Server;
  let base: string;
  let handle: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;

  before(async () => {
    server = createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  describe("pooledGet's stream", () => {
    let pool: PooledGet;
    before(() => {
      const access: ClusterAccess = {
        server: base,
        requestOptions: async () => ({ headers: { authorization: 'Bearer t' } }),
        proxied: false,
        compress: true,
      };
      pool = pooledGet(access);
    });
    after(() => pool.close());

    test('hands over each line as it is complete, after open, and resolves when the server ends the body', async () => {
      const heard: string[] = [];
      let asked: IncomingMessage | undefined;
      handle = (req, res) => {
        asked = req;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED","object":{"a":');
        setImmediate(() => res.end('1}}\n{"type":"BOOKMARK"}\n\n{"last":true}'));
      };
      const res = await pool.stream('/w?watch=true', AbortSignal.timeout(60_000), {
        open: () => heard.push('open'),
        line: (text) => heard.push(text),
      });
      assert.deepEqual(res, { status: 200, body: undefined });
      assert.deepEqual(heard, ['open', '{"type":"ADDED","object":{"a":1}}', '{"type":"BOOKMARK"}', '{"last":true}']);
      assert.equal(asked?.headers.authorization, 'Bearer t');
      assert.equal(asked?.headers['accept-encoding'], undefined, 'no gzip: events must not wait for a block');
    });

    test('another status is read whole and parsed, without open', async () => {
      handle = (_req, res) =>
        res.writeHead(410).end(JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }));
      const heard: string[] = [];
      const res = await pool.stream('/w', AbortSignal.timeout(60_000), {
        open: () => heard.push('open'),
        line: (t) => heard.push(t),
      });
      assert.deepEqual(res, {
        status: 410,
        body: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' },
      });
      assert.deepEqual(heard, []);
    });

    test('an abort rejects with its reason at once and closes the connection', async () => {
      let closed = false;
      handle = (req, res) => {
        res.writeHead(200).flushHeaders();
        req.on('close', () => (closed = true));
      };
      const controller = new AbortController();
      const watching = pool.stream('/w', controller.signal, {
        open: () => controller.abort(new Error('silent for too long')),
        line: () => undefined,
      });
      await assert.rejects(watching, /silent for too long/);
      await eventually(() => closed, 'the server to see the connection close');
    });

    test('a body cut short is an error, not the end of the watch', async () => {
      handle = (_req, res) => {
        res.writeHead(200).write('{"type":"ADDED"');
        setImmediate(() => res.destroy());
      };
      await assert.rejects(
        pool.stream('/w', AbortSignal.timeout(60_000), { open: () => undefined, line: () => undefined }),
      );
    });
  });

  test("pooledGet keeps its connections until the credentials' client certificate changes", async () => {
    let connections = 0;
    server.on('connection', () => connections++);
    handle = (_req, res) => res.end('{}');
    let cert = 'cert-1';
    const pool = pooledGet({
      server: base,
      requestOptions: async () => ({ cert, key: 'key' }),
      proxied: false,
      compress: false,
    });
    try {
      const before = connections;
      await pool.get('/a', AbortSignal.timeout(60_000));
      await pool.get('/b', AbortSignal.timeout(60_000));
      assert.equal(connections - before, 1, 'one kept-alive connection');
      cert = 'cert-2'; // an exec plugin's rotated certificate
      await pool.get('/c', AbortSignal.timeout(60_000));
      assert.equal(connections - before, 2, 'a new connection with the new certificate');
    } finally {
      pool.close();
    }
  });

  test('an RBAC index whose watches go silent resumes them from their resourceVersion at the deadline', async () => {
    const watches: { plural: string; from: string | null }[] = [];
    let closed = 0;
    handle = (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const plural = url.pathname.slice(RBAC.length + 1);
      res.setHeader('content-type', 'application/json');
      if (url.searchParams.get('watch') === 'true') {
        // Open, then nothing: no event, no bookmark, no FIN, as through a NAT entry that was dropped.
        res.writeHead(200).flushHeaders();
        watches.push({ plural, from: url.searchParams.get('resourceVersion') });
        req.on('close', () => closed++);
        return;
      }
      res.end(JSON.stringify({ kind: 'List', metadata: { resourceVersion: '100' }, items: [] }));
    };
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: base, skipTLSVerify: true }],
      users: [{ name: 'hookkeeper', token: 'sa-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'hookkeeper' }],
      currentContext: 'fake',
    });
    // The cache's timers on mock time; its requests go over the network.
    mock.timers.enable({ apis: ['setTimeout'] });
    const index = createRbacIndex({ kubeConfig: kc, logger: silentLogger() });
    try {
      await eventually(() => watches.length === 4, 'four watches');
      assert.equal(index.healthy(), true);
      mock.timers.tick(INACTIVITY_MS);
      await eventually(() => watches.length === 8, 'four watches resumed');
      await eventually(() => closed === 4, 'the silent connections closed');
      assert.deepEqual(
        watches.slice(4).map((w) => w.from),
        ['100', '100', '100', '100'],
      );
      assert.deepEqual(
        watches.map((w) => w.plural).sort(),
        ['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles'].flatMap((p) => [p, p]),
      );
      // Healthy again once each resumed watch's answer has reached the client, which can be after the server has it.
      await eventually(() => index.healthy(), 'healthy again');
    } finally {
      index.stop();
      mock.timers.reset();
    }
  });
});
