// The HTTP contract of everything but /validate and /mutate: the probes, /metrics and the 404 for any other request,
// exactly as kubelet, Prometheus and a lost client see them (status, content type, length, body; HEAD as GET without
// the body). Written against the express app these routes had, so serving them with node:http changed none of it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import request from 'supertest';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { createLogger, silentLogger } from '../../src/infrastructure/log.js';
import { createApp } from '../../src/transports/server/app.js';
import { createMetrics } from '../../src/transports/server/metrics.js';

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const ROUTES = ['POST /validate', 'POST /mutate', 'GET /healthz', 'GET /readyz', 'GET /metrics'];

function app(ready = true, logger = silentLogger()) {
  const metrics = createMetrics();
  return { metrics, listener: createApp({ policy: () => DEFAULT_POLICY, logger, metrics, ready: () => ready }) };
}

type Method = 'get' | 'head' | 'post' | 'put' | 'delete' | 'options' | 'patch';

async function send(listener: ReturnType<typeof app>['listener'], method: Method, path: string) {
  const res = await request(listener)[method](path);
  const { status, headers, text } = res;
  // No header a framework adds on its own (x-powered-by, etag) and a length that is the body's.
  assert.equal(headers['x-powered-by'], undefined, `${method} ${path}`);
  assert.equal(headers['etag'], undefined, `${method} ${path}`);
  // supertest leaves a HEAD answer's text undefined: no body, as ''.
  return {
    status,
    type: headers['content-type'] as string,
    length: Number(headers['content-length']),
    text: text ?? '',
  };
}

describe('probes', () => {
  // Routed as express routed them: any letter case, one trailing slash, the query ignored.
  for (const path of ['/healthz', '/HEALTHZ', '/healthz/', '/healthz?verbose=1', '/readyz', '/Readyz/']) {
    test(`GET and HEAD ${path} -> 200 ok`, async () => {
      const { listener } = app();
      assert.deepEqual(await send(listener, 'get', path), { status: 200, type: TEXT, length: 2, text: 'ok' });
      const head = await send(listener, 'head', path);
      assert.deepEqual(head, { status: 200, type: TEXT, length: 2, text: '' });
    });
  }

  test('readyz while not ready -> 503 "not ready"; healthz still 200', async () => {
    const { listener } = app(false);
    assert.deepEqual(await send(listener, 'get', '/readyz'), {
      status: 503,
      type: TEXT,
      length: 9,
      text: 'not ready',
    });
    assert.deepEqual(await send(listener, 'head', '/readyz'), { status: 503, type: TEXT, length: 9, text: '' });
    assert.equal((await send(listener, 'get', '/healthz')).status, 200);
  });

  test("GET /metrics -> 200 in prom-client's text format; HEAD gives the headers alone", async () => {
    const { listener, metrics } = app();
    const get = await send(listener, 'get', '/metrics');
    assert.equal(get.status, 200);
    assert.equal(get.type, metrics.registry.contentType);
    assert.equal(get.length, Buffer.byteLength(get.text));
    assert.match(get.text, /^# HELP /m);
    const head = await send(listener, 'head', '/metrics');
    assert.deepEqual([head.status, head.type, head.text], [200, metrics.registry.contentType, '']);
  });

  test('metrics that cannot be collected -> 500, logged, no stack trace in the answer', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } });
    const { listener, metrics } = app(true, logger);
    metrics.registry.metrics = () => Promise.reject(new Error('collector broke'));
    const res = await send(listener, 'get', '/metrics');
    assert.equal(res.status, 500);
    assert.doesNotMatch(res.text, /at |collector broke/);
    assert.ok(lines.some((l) => /collector broke/.test(l)));
  });
});

describe('anything else -> 404 naming the request and listing the routes', () => {
  const cases: Array<[Method, string, string]> = [
    ['get', '/', 'GET /'],
    ['get', '/nope?x=1', 'GET /nope'],
    ['get', '//healthz', 'GET //healthz'],
    ['get', '/healthz/x', 'GET /healthz/x'],
    ['get', '/%zz', 'GET /%zz'],
    ['get', '/metrics%2F', 'GET /metrics%2F'],
    ['get', '/validate/x', 'GET /validate/x'],
    ['get', '/Validate', 'GET /Validate'],
    ['post', '/healthz', 'POST /healthz'],
    ['put', '/readyz', 'PUT /readyz'],
    ['delete', '/metrics', 'DELETE /metrics'],
    ['options', '/healthz', 'OPTIONS /healthz'],
    ['patch', '/healthz?x=1', 'PATCH /healthz'],
  ];
  for (const [method, path, named] of cases)
    test(`${method.toUpperCase()} ${path}`, async () => {
      const { listener, metrics } = app();
      const body = JSON.stringify({ error: `no route for ${named}`, routes: ROUTES });
      assert.deepEqual(await send(listener, method, path), {
        status: 404,
        type: JSON_TYPE,
        length: Buffer.byteLength(body),
        text: body,
      });
      assert.match(await metrics.registry.metrics(), /hookkeeper_bad_requests_total\{reason="not_found"\} 1/);
    });

  test('HEAD of an unknown path: the same headers, no body', async () => {
    const body = JSON.stringify({ error: 'no route for HEAD /nope', routes: ROUTES });
    assert.deepEqual(await send(app().listener, 'head', '/nope'), {
      status: 404,
      type: JSON_TYPE,
      length: Buffer.byteLength(body),
      text: '',
    });
  });
});
