// An AdmissionReview whose operation lacks the object(s) the API server always sends is a client error (400 /
// exit 2) on every way in, never a policy decision: judged, it would be an allow with nothing checked.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import request from 'supertest';
import { parseAdmissionReview } from '../../src/admission/parse.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createApp } from '../../src/transports/server/app.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import type { Operation } from '../../src/core/types.js';
import { admissionReview, ETCD, machine, USERS } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';

/** An UPDATE that removes the etcd hook (denied when both objects are sent), with one side missing or null. */
function review(
  operation: Operation,
  object: 'missing' | 'null' | 'present',
  oldObject: 'missing' | 'null' | 'present',
): Record<string, unknown> {
  const body = admissionReview({
    operation,
    object: machine({ preDrain: [] }),
    oldObject: machine({ preDrain: [ETCD] }),
    user: USERS.alice,
  });
  const req = body['request'] as Record<string, unknown>;
  for (const [field, how] of [
    ['object', object],
    ['oldObject', oldObject],
  ] as const) {
    if (how === 'missing') delete req[field];
    else if (how === 'null') req[field] = null;
  }
  return body;
}

const BAD: Array<[string, Operation, 'missing' | 'null' | 'present', 'missing' | 'null' | 'present', string]> = [
  ['UPDATE without object', 'UPDATE', 'missing', 'present', 'request.object is required for UPDATE'],
  ['UPDATE with a null object', 'UPDATE', 'null', 'present', 'request.object is required for UPDATE'],
  ['UPDATE without oldObject', 'UPDATE', 'present', 'missing', 'request.oldObject is required for UPDATE'],
  ['UPDATE with a null oldObject', 'UPDATE', 'present', 'null', 'request.oldObject is required for UPDATE'],
  ['CREATE with a null object', 'CREATE', 'null', 'null', 'request.object is required for CREATE'],
  ['DELETE without oldObject', 'DELETE', 'null', 'missing', 'request.oldObject is required for DELETE'],
];

describe('parseAdmissionReview: the objects each operation carries', () => {
  for (const [title, op, object, oldObject, problem] of BAD) {
    test(`refuses ${title}`, () => {
      const r = parseAdmissionReview(review(op, object, oldObject));
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.deepEqual(r.problems, [problem]);
      assert.equal(r.uid, '0df28fbd-5f5f-11e8-bc74-36e6bb280816');
    });
  }
  test('accepts what the API server sends: CREATE (object), UPDATE (both), DELETE (oldObject), CONNECT (neither)', () => {
    for (const [op, object, oldObject] of [
      ['CREATE', 'present', 'null'],
      ['UPDATE', 'present', 'present'],
      ['DELETE', 'null', 'present'],
      ['CONNECT', 'null', 'missing'],
    ] as const) {
      assert.equal(parseAdmissionReview(review(op, object, oldObject)).ok, true, op);
    }
  });
});

describe('every transport answers a missing object with a client error', () => {
  const listener = createApp({
    policy: () => DEFAULT_POLICY,
    logger: silentLogger(),
    metrics: createMetrics(),
    ready: () => true,
  });
  for (const path of ['/validate', '/mutate']) {
    test(`${path}: 400 naming the missing field`, async () => {
      for (const [, op, object, oldObject, problem] of BAD) {
        const res = await request(listener)
          .post(path)
          .send(review(op, object, oldObject))
          .expect(400);
        assert.deepEqual(res.body.problems, [problem]);
      }
    });
  }

  test('hookkeeper review: exit 2, nothing on stdout', async () => {
    const r = await cli(['review'], { stdin: JSON.stringify(review('UPDATE', 'present', 'null')) });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /request\.oldObject is required for UPDATE/);
  });

  test('hookkeeper validate: an AdmissionReview document without its object is an input error (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-shape-'));
    try {
      await writeFile(join(dir, 'review.json'), JSON.stringify(review('UPDATE', 'null', 'present')));
      const r = await cli(['validate', 'review.json'], { cwd: dir });
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stdout + r.stderr, /request\.object is required for UPDATE/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
