// Hostile bodies through the HTTP listener (supertest, loopback): every answer is a well-formed JSON reply with
// a 2xx/4xx status, carries the request's uid when one can be read, never allows what the policy denies, and
// the listener keeps answering afterwards.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import request from 'supertest';
import { MAX_UID_LENGTH } from '../../src/admission/schema.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createApp } from '../../src/transports/server/app.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import { removeEtcdHookReview, statusUpdateReview } from '../fixtures/hardening-machine.js';
import {
  allPaths,
  applyEdits,
  DECISIVE,
  hostileJson,
  unrelatedEdits,
  valueAt,
  viaWire,
  withValueAt,
  type Json,
  type Path,
} from '../helpers/hardening-json.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';

let server: Server;
before(async () => {
  // A 64 KiB limit keeps oversized cases cheap; the limit's own behaviour is tested in http-limits.
  const listener = createApp({
    policy: () => DEFAULT_POLICY,
    logger: silentLogger(),
    metrics: createMetrics(),
    ready: () => true,
    bodyLimit: 64 * 1024,
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
];
const PATHS = ['/validate', '/mutate', '/validate?timeout=10s', '/mutate?timeout=5s&x=%00'];

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function post(path: string, contentType: string, body: string | Buffer): Promise<Reply> {
  const res = await request(server).post(path).set('content-type', contentType).send(body);
  const parsed: unknown = JSON.parse(res.text);
  assert.equal(typeof parsed, 'object');
  return { status: res.status, body: parsed as Record<string, unknown> };
}

/** The uid in a reply: response.uid for a decision, uid for a refusal. */
function replyUid(r: Reply): unknown {
  return r.status === 200 ? (r.body['response'] as Record<string, unknown> | undefined)?.['uid'] : r.body['uid'];
}

/** A uid the reply must echo: a non-empty string within the bound; a longer one is never echoed (bounded answers). */
function readableUid(body: unknown): string | undefined {
  const uid = valueAt(body, ['request', 'uid']);
  return typeof uid === 'string' && uid !== '' && uid.length <= MAX_UID_LENGTH ? uid : undefined;
}

async function assertResponsive(): Promise<void> {
  await request(server).get('/healthz').expect(200, 'ok');
}

describe('hostile bodies over HTTP', { timeout: HANG_GUARD_MS }, () => {
  test('arbitrary bytes, text and JSON, with any content type: a JSON reply, 2xx or 4xx, never a crash', async () => {
    const body = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      hostileJson.map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.constantFrom(...CONTENT_TYPES),
        body,
        async (path, type, payload) => {
          const r = await post(path, type, payload);
          assert.ok([200, 400, 413, 415].includes(r.status), `HTTP ${r.status}`);
          if (r.status === 200)
            assert.equal(typeof (r.body['response'] as Record<string, unknown>)['allowed'], 'boolean');
        },
      ),
      { numRuns: 200 },
    );
    await assertResponsive();
  });

  test('realistic reviews with wrong types and hostile values at arbitrary paths: the uid comes back when readable', async () => {
    const review = viaWire(statusUpdateReview()) as Json;
    const paths = allPaths(review);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.option(hostileJson, { nil: undefined }),
        fc.constantFrom('/validate', '/mutate'),
        async (path: Path, value, route) => {
          const body = withValueAt(review, path, value);
          const text = JSON.stringify(body);
          const r = await post(route, 'application/json', text);
          if (Buffer.byteLength(text) > 64 * 1024) {
            assert.equal(r.status, 413);
            return;
          }
          assert.ok([200, 400].includes(r.status), `HTTP ${r.status}`);
          const uid = readableUid(body);
          if (uid !== undefined) assert.equal(replyUid(r), uid);
          else {
            const echoed = replyUid(r);
            assert.ok(typeof echoed !== 'string' || echoed.length <= MAX_UID_LENGTH, 'an over-long uid is not echoed');
          }
        },
      ),
      { numRuns: 300 },
    );
    await assertResponsive();
  });

  test('an ordinary user removing the etcd hook stays denied whatever unrelated fields hold', async () => {
    const review = viaWire(removeEtcdHookReview()) as Json;
    await fc.assert(
      fc.asyncProperty(unrelatedEdits(review, DECISIVE), async (edits) => {
        const text = JSON.stringify(applyEdits(review, edits));
        if (Buffer.byteLength(text) > 64 * 1024) return;
        const r = await post('/validate', 'application/json', text);
        assert.equal(replyUid(r), readableUid(review));
        if (r.status === 200) assert.equal((r.body['response'] as Record<string, unknown>)['allowed'], false);
        else assert.equal(r.status, 400);
      }),
      { numRuns: 200 },
    );
    await assertResponsive();
  });

  test('a body nested as deep as the API server allows is answered, with the uid', async () => {
    const text = JSON.stringify(viaWire(removeEtcdHookReview())).replace(
      '"ami":{"id":"ami-0c5d3e3a9b1f2e4d6"}',
      `"ami":${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    );
    const r = await post('/validate', 'application/json', text);
    assert.equal(r.status, 200);
    assert.equal(replyUid(r), readableUid(JSON.parse(text)));
    assert.equal((r.body['response'] as Record<string, unknown>)['allowed'], false);
    await assertResponsive();
  });
});
