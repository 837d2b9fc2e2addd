// The transport's limits on loopback: a body over the limit without a content-length, content types, clients
// that stall inside the headers or the body (cut off by headersTimeout/requestTimeout), and a storm of 200
// connections during which the server still answers its probes.
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { connect, type TLSSocket } from 'node:tls';
import request from 'supertest';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createApp } from '../../src/transports/server/app.js';
import { createMetrics, type Metrics } from '../../src/transports/server/metrics.js';
import { startServer, type RunningServer } from '../../src/transports/server/serve.js';
import { removeEtcdHookReview } from '../fixtures/hardening-machine.js';
import { expectDecision, keepAliveAgent, send } from '../helpers/hardening-load.js';
import { httpsRequest, makePki, type TestPki } from '../helpers/tls.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';

const LIMIT = 64 * 1024;
const closers: Array<() => Promise<void>> = [];
after(async () => {
  await Promise.all(closers.map((c) => c()));
});

async function plainServer(): Promise<{ port: number; metrics: Metrics }> {
  const metrics = createMetrics();
  const server: Server = createServer(
    createApp({ policy: () => DEFAULT_POLICY, logger: silentLogger(), metrics, ready: () => true, bodyLimit: LIMIT }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, metrics };
}

const denied = JSON.stringify(removeEtcdHookReview('limits-uid'));

describe('body and content type', { timeout: HANG_GUARD_MS }, () => {
  test('a chunked body with no content-length is cut off at the limit: 413, connection closed', async () => {
    const { port, metrics } = await plainServer();
    const res = await new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/validate',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          },
          (r) => {
            let body = '';
            r.on('data', (c: Buffer) => {
              body += c.toString();
            });
            r.on('end', () => resolve({ status: r.statusCode ?? 0, connection: r.headers['connection'], body }));
          },
        );
        req.on('error', (err) => {
          if (!answered) reject(err);
        });
        let answered = false;
        req.on('response', () => {
          answered = true;
        });
        // Keep sending 16 KiB chunks (8 MiB at most) until the server answers.
        const chunk = `"${'x'.repeat(16 * 1024 - 2)}"`;
        let sent = 0;
        const pump = (): void => {
          while (!answered && sent < 512) {
            sent++;
            if (!req.write(chunk)) {
              req.once('drain', pump);
              return;
            }
          }
          if (!answered) req.end();
        };
        pump();
      },
    );
    assert.equal(res.status, 413);
    assert.equal(res.connection, 'close');
    assert.match(JSON.parse(res.body).error, /exceeds the 65536-byte limit/);
    assert.match(await metrics.registry.metrics(), /hookkeeper_bad_requests_total\{reason="too_large"\} 1/);
  });

  test('a chunked body under the limit is read whole', async () => {
    const { port } = await plainServer();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/validate',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (r) => {
          r.resume();
          r.on('end', () => resolve(r.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      for (let i = 0; i < denied.length; i += 1000) req.write(denied.slice(i, i + 1000));
      req.end();
    });
    assert.equal(status, 200);
  });

  test('content type: missing or not JSON -> 415; JSON with parameters or in upper case -> decided', async () => {
    const { port } = await plainServer();
    const target = `http://127.0.0.1:${port}`;
    const bare = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/validate',
          method: 'POST',
          headers: { 'content-length': Buffer.byteLength(denied) },
        },
        (r) => {
          r.resume();
          r.on('end', () => resolve(r.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(denied);
    });
    assert.equal(bare, 415);
    for (const type of ['text/plain', 'application/yaml', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      await request(target).post('/validate').set('content-type', type).send(denied).expect(415);
    }
    for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON']) {
      const res = await request(target).post('/validate').set('content-type', type).send(denied).expect(200);
      assert.equal(res.body.response.uid, 'limits-uid');
      assert.equal(res.body.response.allowed, false);
    }
  });
});

async function tlsServer(pki: TestPki): Promise<RunningServer> {
  const s = await startServer(
    {
      host: '127.0.0.1',
      port: 0,
      devCertDir: '/nonexistent',
      tlsCertFile: pki.certFile,
      tlsKeyFile: pki.keyFile,
      reloadIntervalMs: 60_000,
      shutdownGraceMs: 1_000,
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      handshakeTimeoutMs: 300,
    },
    silentLogger(),
    createMetrics(),
  );
  closers.push(() => s.shutdown());
  return s;
}

/** Opens a TLS connection, writes `text`, then stalls; resolves with what the server sent once it closes the socket. */
function stall(port: number, ca: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = connect({ host: '127.0.0.1', port, ca }, () => {
      if (text !== '') socket.write(text);
    });
    let received = '';
    socket.on('data', (c: Buffer) => {
      received += c.toString();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

describe('slow clients', { timeout: HANG_GUARD_MS }, () => {
  test('half the headers, a whole head with half a body, or nothing at all: each is cut off, others still served', async () => {
    const pki = await makePki();
    const s = await tlsServer(pki);
    const ca = pki.ca.certPem;
    const stalled = Promise.all([
      stall(s.port, ca, 'POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: appl'),
      stall(
        s.port,
        ca,
        `POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(denied)}\r\n\r\n${denied.slice(0, 500)}`,
      ),
      stall(s.port, ca, ''),
    ]);
    // While they hang, the server answers everyone else.
    assert.equal((await httpsRequest({ port: s.port, path: '/healthz', ca })).status, 200);
    const received = await stalled;
    // Node answers 408 before closing when it can; a client that never finished its head gets at most that.
    for (const r of received) assert.ok(r === '' || r.startsWith('HTTP/1.1 408 '), JSON.stringify(r.slice(0, 80)));
    assert.equal((await httpsRequest({ port: s.port, path: '/readyz', ca })).status, 200);
  });

  test('a connection that never finishes its TLS handshake is closed after the handshake timeout', async () => {
    const pki = await makePki();
    const s = await tlsServer(pki);
    // Nothing at all, and the first bytes of a ClientHello record (handshake, TLS 1.0 record version, 512 bytes).
    for (const bytes of [Buffer.alloc(0), Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])]) {
      // The verdict: the server closes it. The guard only keeps a server that never does from hanging the run.
      await new Promise<void>((resolve, reject) => {
        const socket = netConnect({ host: '127.0.0.1', port: s.port }, () => {
          if (bytes.length > 0) socket.write(bytes);
        });
        socket.on('error', () => undefined); // a reset is as good as a close here
        socket.on('close', () => resolve());
        setTimeout(() => {
          socket.destroy();
          reject(new Error('hang guard: the server never closed the connection (waited 60 s)'));
        }, 60_000).unref();
      });
    }
    assert.equal((await httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem })).status, 200);
  });
});

describe('many connections', { timeout: HANG_GUARD_MS }, () => {
  test('200 idle connections and 200 concurrent reviews: every review answered, probes answered during the storm', async () => {
    const pki = await makePki();
    const s = await startServer(
      {
        host: '127.0.0.1',
        port: 0,
        devCertDir: '/nonexistent',
        tlsCertFile: pki.certFile,
        tlsKeyFile: pki.keyFile,
        reloadIntervalMs: 60_000,
        shutdownGraceMs: 1_000,
      },
      silentLogger(),
      createMetrics(),
    );
    closers.push(() => s.shutdown());
    const target = { port: s.port, ca: pki.ca.certPem };
    const idle = await Promise.all(
      Array.from(
        { length: 200 },
        () =>
          new Promise<TLSSocket>((resolve, reject) => {
            const socket = connect({ host: '127.0.0.1', port: s.port, ca: pki.ca.certPem }, () => resolve(socket));
            socket.on('error', reject);
          }),
      ),
    );
    const agent = keepAliveAgent(target, 200);
    const shot = { path: '/validate', body: denied, check: expectDecision('limits-uid', 'denied') };
    const storm = Promise.all(Array.from({ length: 200 }, () => send(target, shot, { agent })));
    const probe = await httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem });
    const problems = (await storm).filter((p) => p !== undefined);
    assert.equal(probe.status, 200);
    assert.deepEqual(problems, []);
    for (const socket of idle) socket.destroy();
    agent.destroy();
  });
});
