// Bounded answers: whatever a request holds (tens of thousands of hooks, names and owners at and past the CRD
// limits, characters JSON escapes six times over), the AdmissionReview answer stays within 64 KiB, the denial
// names a handful of violations and counts the rest, and warnings and audit annotations keep the API server's limits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import request from 'supertest';
import { denialMessage, handle, type Webhook } from '../../src/admission/handle.js';
import {
  MAX_AUDIT_ANNOTATIONS,
  MAX_DENIALS_SHOWN,
  MAX_PROBLEMS_SHOWN,
  MAX_RESPONSE_BYTES,
  MAX_WARNINGS,
  MAX_WARNINGS_BYTES,
} from '../../src/admission/limits.js';
import { parseAdmissionReview } from '../../src/admission/parse.js';
import { patched, PatchTooLarge, toAdmissionReview } from '../../src/admission/response.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject, Violation } from '../../src/core/types.js';
import { createLogger, silentLogger } from '../../src/infrastructure/log.js';
import { createApp } from '../../src/transports/server/app.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import { admissionReview, ETCD, machine, USERS } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** A mass removal: 20,000 etcd-owned hooks removed in one UPDATE by someone who may not. */
function massRemoval(n: number): Record<string, unknown> {
  const hooks = Array.from({ length: n }, (_, i) => ({ name: `EtcdQuorumOperator${i}`, owner: ETCD.owner }));
  return admissionReview({
    operation: 'UPDATE',
    object: machine({ preDrain: [] }),
    oldObject: machine({ preDrain: hooks }),
    user: USERS.alice,
  });
}

// JSON writes U+0001 as \u0001 (6 bytes); a quoted value makes that 7 in the answer. Names and owners at and past
// the CRD's 256 and 512 characters.
const NASTY = '\u0001"\\\u00e9\u4e2d\ud83d\ude00';
const nasty = (length: number): string => NASTY.repeat(Math.ceil(length / NASTY.length)).slice(0, length);

/** Every kind of finding at once, thousands of each: denials, warnings, break-glass notices, a deleting Machine. */
function worstCase(n: number): { policy: Policy; body: Record<string, unknown> } {
  const policy: Policy = { ...DEFAULT_POLICY, enforcement: { ...DEFAULT_POLICY.enforcement, 'single-owner': 'warn' } };
  const removed = Array.from({ length: n }, (_, i) => ({ name: `${nasty(250)}${i}`, owner: ETCD.owner }));
  const added = Array.from({ length: n }, (_, i) => ({ name: `${nasty(300)}${i % 50}`, owner: nasty(600) }));
  const refs = Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind: nasty(300),
    name: `${nasty(300)}${i}`,
    uid: `u${i}`,
    controller: true,
  }));
  const oldObject = machine({ preDrain: removed, preTerminate: removed, deletionTimestamp: '2026-11-24T10:00:00Z' });
  const object: KubeObject = machine({
    preDrain: added,
    preTerminate: added,
    deletionTimestamp: '2026-11-24T10:00:00Z',
    ownerReferences: refs,
  });
  const user = { username: nasty(4000), uid: 'u', groups: ['system:masters', nasty(5000)] };
  return {
    policy,
    body: admissionReview({
      uid: 'ffffffff-ffff-4fff-bfff-ffffffffffff',
      operation: 'UPDATE',
      object,
      oldObject,
      user,
    }),
  };
}

function assertBounded(review: ReturnType<typeof toAdmissionReview>, what: string): void {
  const size = bytes(review);
  assert.ok(size <= MAX_RESPONSE_BYTES, `${what}: ${size} bytes`);
  const { warnings = [], auditAnnotations = {} } = review.response;
  assert.ok(warnings.length <= MAX_WARNINGS, `${what}: ${warnings.length} warnings`);
  for (const w of warnings) assert.ok([...w].length <= 120, `${what}: warning of ${[...w].length} characters`);
  assert.ok(Buffer.byteLength(warnings.join('')) <= MAX_WARNINGS_BYTES, `${what}: warnings total`);
  const keys = Object.keys(auditAnnotations);
  assert.ok(keys.length <= MAX_AUDIT_ANNOTATIONS, `${what}: ${keys.length} audit annotations`);
  for (const k of keys) assert.match(k, QUALIFIED_NAME, what);
  for (const k of keys) assert.ok(k.length <= 63, what);
}

describe('the answer is bounded', () => {
  test('removing 20,000 etcd hooks: a short denial that names five and counts the rest', async () => {
    const listener = createApp({
      policy: () => DEFAULT_POLICY,
      logger: silentLogger(),
      metrics: createMetrics(),
      ready: () => true,
    });
    const res = await request(listener).post('/validate').send(massRemoval(20_000)).expect(200);
    assert.ok(Buffer.byteLength(res.text) <= MAX_RESPONSE_BYTES, `${Buffer.byteLength(res.text)} bytes`);
    assert.equal(res.body.response.allowed, false);
    const message: string = res.body.response.status.message;
    assert.equal(message.match(/may not remove preDrain hook/g)?.length, MAX_DENIALS_SHOWN);
    assert.match(message, /"EtcdQuorumOperator0"/);
    assert.match(message, /; and 19995 more violations$/);
  });

  for (const webhook of ['validate', 'mutate', 'review'] as Webhook[]) {
    test(`${webhook}: the worst request we can build stays within 64 KiB and the API server's limits`, () => {
      const { policy, body } = worstCase(3000);
      const parsed = parseAdmissionReview(body);
      assert.ok(parsed.ok);
      const outcome = handle(webhook, policy, parsed.review.input);
      if (webhook !== 'mutate') {
        // It really is the worst: thousands of every finding went into this answer.
        assert.ok(
          outcome.decision.denials.length > 3000 &&
            outcome.decision.warnings.length > 1000 &&
            outcome.decision.notices.length >= 6000,
        );
      }
      assertBounded(toAdmissionReview(parsed.review.uid, outcome.result), webhook);
    });
  }

  test('the log keeps every violation at debug level', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: {
        write: (line: string) => {
          lines.push(line);
        },
      },
    });
    const listener = createApp({ policy: () => DEFAULT_POLICY, logger, metrics: createMetrics(), ready: () => true });
    await request(listener).post('/validate').send(massRemoval(200)).expect(200);
    const bodies = lines
      .map((l) => JSON.parse(l) as { msg: string; denials?: Violation[] })
      .find((l) => l.msg === 'admission bodies');
    assert.equal(bodies?.denials?.length, 200);
    assert.match(bodies?.denials?.[199]?.message ?? '', /"EtcdQuorumOperator199"/);
  });

  test('hookkeeper review writes the same bounded answer', async () => {
    const r = await cli(['review'], { stdin: JSON.stringify(massRemoval(20_000)) });
    assert.equal(r.code, 1);
    assert.ok(Buffer.byteLength(r.stdout) <= MAX_RESPONSE_BYTES + 1);
    assertBounded(JSON.parse(r.stdout) as ReturnType<typeof toAdmissionReview>, 'review');
  });

  test('a uid longer than any the API server makes is refused, and not echoed', async () => {
    const listener = createApp({
      policy: () => DEFAULT_POLICY,
      logger: silentLogger(),
      metrics: createMetrics(),
      ready: () => true,
    });
    const body = massRemoval(1);
    (body['request'] as Record<string, unknown>)['uid'] = 'u'.repeat(100_000);
    const res = await request(listener).post('/validate').send(body).expect(400);
    assert.deepEqual(res.body.problems, ['request.uid must NOT have more than 256 characters']);
    assert.equal(res.body.uid, undefined);
  });

  test('a body with a hundred thousand wrong values gets a short 400 that counts them', async () => {
    const listener = createApp({
      policy: () => DEFAULT_POLICY,
      logger: silentLogger(),
      metrics: createMetrics(),
      ready: () => true,
    });
    const body = massRemoval(1);
    (body['request'] as Record<string, Record<string, unknown>>)['userInfo']!['groups'] = Array.from(
      { length: 100_000 },
      (_, i) => i,
    );
    const res = await request(listener).post('/validate').send(body).expect(400);
    assert.ok(Buffer.byteLength(res.text) <= MAX_RESPONSE_BYTES, `${Buffer.byteLength(res.text)} bytes`);
    assert.equal(res.body.problems.length, MAX_PROBLEMS_SHOWN + 1);
    assert.equal(res.body.problems[0], 'request.userInfo.groups.0 must be string');
    assert.equal(res.body.problems[MAX_PROBLEMS_SHOWN], `and ${100_000 - MAX_PROBLEMS_SHOWN} more problems`);
  });

  test('a patch too large to answer with is a fault, never a cut patch nor an allowed: false answer', () => {
    const ops = Array.from({ length: 5000 }, (_, i) => ({
      op: 'add' as const,
      path: `/metadata/labels/l${i}`,
      value: 'v'.repeat(20),
    }));
    assert.throws(
      () => toAdmissionReview('u', patched(ops)),
      (err: unknown) => err instanceof PatchTooLarge && /patch of \d+ bytes exceeds/.test(err.message),
    );
  });
});

describe('denialMessage', () => {
  const v = (i: number): Violation => ({ rule: 'hook-naming', path: 'p', message: `m${i}`, key: `k${i}` });
  test('up to five violations are named in full', () => {
    assert.equal(denialMessage([1, 2, 3].map(v)), 'm1; m2; m3');
    assert.equal(denialMessage([1, 2, 3, 4, 5].map(v)), 'm1; m2; m3; m4; m5');
  });
  test('more are counted', () => {
    assert.equal(denialMessage([1, 2, 3, 4, 5, 6].map(v)), 'm1; m2; m3; m4; m5; and 1 more violation');
    assert.equal(denialMessage([1, 2, 3, 4, 5, 6, 7].map(v)), 'm1; m2; m3; m4; m5; and 2 more violations');
  });
  test('one very long violation is cut, marked with "..."', () => {
    const long = { ...v(0), message: 'x'.repeat(100_000) };
    const out = denialMessage([long]);
    assert.ok(out.length < 5000);
    assert.ok(out.endsWith('...'));
  });
});
