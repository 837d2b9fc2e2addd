// Exact values of every response constructor and the finished AdmissionReview envelope.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowed, denied, patched, shortWarning, toAdmissionReview } from '../../src/admission/response.js';

const UID = '705ab4f5-6393-11e8-b7cc-42010a800002';

test('allowed: uid echoed, nothing else', () => {
  assert.deepEqual(toAdmissionReview(UID, allowed()), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: UID, allowed: true },
  });
});

test('denied: 403 Forbidden with the message', () => {
  assert.deepEqual(toAdmissionReview(UID, denied('spec.lifecycleHooks.preDrain: Forbidden: no')), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid: UID,
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: 'spec.lifecycleHooks.preDrain: Forbidden: no' },
    },
  });
});

test('patched: base64 JSONPatch and patchType, only when there is a patch', () => {
  const ops = [
    {
      op: 'add' as const,
      path: '/spec/lifecycleHooks/preDrain/-',
      value: { name: 'EtcdQuorumOperator', owner: 'clusteroperator/etcd' },
    },
  ];
  const out = toAdmissionReview(UID, patched(ops));
  assert.deepEqual(out.response, {
    uid: UID,
    allowed: true,
    patchType: 'JSONPatch',
    patch:
      'W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvbGlmZWN5Y2xlSG9va3MvcHJlRHJhaW4vLSIsInZhbHVlIjp7Im5hbWUiOiJFdGNkUXVvcnVtT3BlcmF0b3IiLCJvd25lciI6ImNsdXN0ZXJvcGVyYXRvci9ldGNkIn19XQ==',
  });
  assert.deepEqual(JSON.parse(Buffer.from(out.response.patch ?? '', 'base64').toString()), ops);
  assert.deepEqual(toAdmissionReview(UID, patched([])).response, { uid: UID, allowed: true });
});

test('warnings are kept short; audit annotations are carried', () => {
  const long = 'w'.repeat(200);
  const out = toAdmissionReview(
    UID,
    allowed({ warnings: ['short', long], auditAnnotations: { 'break-glass-hook-removal': '{"hook":"X"}' } }),
  );
  assert.deepEqual(out.response.warnings, ['short', `${'w'.repeat(117)}...`]);
  assert.equal(shortWarning(long).length, 120);
  assert.deepEqual(out.response.auditAnnotations, { 'break-glass-hook-removal': '{"hook":"X"}' });
});
