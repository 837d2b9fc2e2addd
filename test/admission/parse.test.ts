// Parsing AdmissionReview bodies: what is accepted, and what each malformed body is told.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAdmissionReview } from '../../src/admission/parse.js';
import { admissionReview, machine, USERS } from '../fixtures/openshift.js';

test('a real UPDATE review becomes the engine input', () => {
  const body = admissionReview({
    operation: 'UPDATE',
    object: machine(),
    oldObject: machine(),
    user: USERS.etcdOperator,
    dryRun: true,
  });
  const r = parseAdmissionReview(body);
  assert.ok(r.ok);
  assert.equal(r.review.uid, '0df28fbd-5f5f-11e8-bc74-36e6bb280816');
  assert.deepEqual(r.review.input.kind, { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' });
  assert.equal(r.review.input.operation, 'UPDATE');
  assert.equal(r.review.input.dryRun, true);
  assert.deepEqual(r.review.input.userInfo.groups, USERS.etcdOperator.groups);
  assert.equal(r.review.input.namespace, 'openshift-machine-api');
});

test('DELETE carries oldObject and a null object', () => {
  const r = parseAdmissionReview(admissionReview({ operation: 'DELETE', object: null, oldObject: machine() }));
  assert.ok(r.ok);
  assert.equal(r.review.input.object, null);
});

const bad: Array<[string, unknown, string[]]> = [
  ['not an object', 'hello', ['body must be object']],
  [
    'wrong apiVersion',
    { ...admissionReview({ operation: 'CREATE', object: machine() }), apiVersion: 'admission.k8s.io/v1beta1' },
    ['apiVersion must be "admission.k8s.io/v1"'],
  ],
  [
    'wrong kind',
    { ...admissionReview({ operation: 'CREATE', object: machine() }), kind: 'Review' },
    ['kind must be "AdmissionReview"'],
  ],
  [
    'missing request',
    { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' },
    ["body must have required property 'request'"],
  ],
  [
    'unknown operation',
    (() => {
      const b = admissionReview({ operation: 'CREATE', object: machine() });
      (b['request'] as Record<string, unknown>)['operation'] = 'PATCH';
      return b;
    })(),
    ['request.operation must be one of CREATE, UPDATE, DELETE, CONNECT'],
  ],
  [
    'missing uid',
    (() => {
      const b = admissionReview({ operation: 'CREATE', object: machine() });
      delete (b['request'] as Record<string, unknown>)['uid'];
      return b;
    })(),
    ["request must have required property 'uid'"],
  ],
  [
    'object of the wrong type',
    (() => {
      const b = admissionReview({ operation: 'CREATE', object: machine() });
      (b['request'] as Record<string, unknown>)['object'] = 'x';
      return b;
    })(),
    ['request.object must be object,null'],
  ],
];
for (const [title, body, problems] of bad) {
  test(`rejects ${title}`, () => {
    const r = parseAdmissionReview(body);
    assert.equal(r.ok, false);
    if (!r.ok) assert.deepEqual(r.problems, problems);
  });
}

test('the uid of an invalid review is still reported', () => {
  const b = admissionReview({ operation: 'CREATE', object: machine() });
  (b['request'] as Record<string, unknown>)['operation'] = 'PATCH';
  const r = parseAdmissionReview(b);
  assert.ok(!r.ok && r.uid === '0df28fbd-5f5f-11e8-bc74-36e6bb280816');
});
