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

test("userInfo's uid and extra are kept as sent: the SubjectAccessReview asks about that exact requester", () => {
  // OpenShift puts a scoped token's scopes in extra; a nil value (Go's nil ExtraValue) arrives as null.
  const extra = { 'scopes.authorization.openshift.io': ['user:info', 'user:check-access'], empty: [], nil: null };
  const r = parseAdmissionReview(
    admissionReview({ operation: 'UPDATE', object: machine(), oldObject: machine(), user: { ...USERS.alice, extra } }),
  );
  assert.ok(r.ok);
  assert.deepEqual(r.review.input.userInfo, {
    username: 'alice',
    uid: 'u-3',
    groups: ['system:authenticated'],
    extra: { 'scopes.authorization.openshift.io': ['user:info', 'user:check-access'], empty: [], nil: [] },
  });
  // No extra sent, none invented.
  const plain = parseAdmissionReview(admissionReview({ operation: 'UPDATE', object: machine(), oldObject: machine() }));
  assert.ok(plain.ok);
  assert.equal('extra' in plain.review.input.userInfo, false);
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
  ...(
    [
      ['userInfo.extra that is not a map', 'scoped', ['request.userInfo.extra must be object']],
      [
        'a userInfo.extra value that is not a list',
        { scopes: 'user:info' },
        ['request.userInfo.extra.scopes must be array,null'],
      ],
      [
        'a userInfo.extra item that is not a string',
        { scopes: ['user:info', 7] },
        ['request.userInfo.extra.scopes.1 must be string'],
      ],
    ] as const
  ).map(([title, extra, problems]): [string, unknown, string[]] => [
    title,
    admissionReview({
      operation: 'UPDATE',
      object: machine(),
      oldObject: machine(),
      user: { ...USERS.alice, extra: extra as never },
    }),
    [...problems],
  ]),
  [
    'a userInfo.uid that is not a string',
    admissionReview({
      operation: 'UPDATE',
      object: machine(),
      oldObject: machine(),
      user: { ...USERS.alice, uid: 7 as never },
    }),
    ['request.userInfo.uid must be string'],
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
