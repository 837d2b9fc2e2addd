// Rule child-finalizer: a managed finalizer leaves a child only by the hand of the rule's finalizerRemovers, or
// of break-glass (allowed, warned and audited).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import { evaluate } from '../../src/core/engine.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject } from '../../src/core/types.js';
import {
  CHILD_USERS,
  childInput,
  launcherPod,
  PG_FINALIZER,
  pgConfigMap,
  VM_FINALIZER,
  VM_POLICY,
  DB_POLICY,
} from '../fixtures/children.js';

const NAME = 'virt-launcher-testvm-x7k2p';

function deletingPod(finalizers: string[], labels?: Record<string, string>): KubeObject {
  const pod = launcherPod({ stored: true, name: NAME, finalizers });
  const meta = pod['metadata'] as Record<string, unknown>;
  meta['deletionTimestamp'] = '2026-11-21T11:00:00Z';
  meta['deletionGracePeriodSeconds'] = 0;
  if (labels) meta['labels'] = labels;
  return pod;
}

function removal(
  user: { username: string; groups: readonly string[] },
  policy: Policy = VM_POLICY,
  after: string[] = [],
) {
  return evaluate(
    policy,
    childInput({
      operation: 'UPDATE',
      user,
      oldObject: deletingPod([VM_FINALIZER, 'kubevirt.io/virtualMachineControllerFinalize']),
      object: deletingPod(after),
    }),
  );
}

describe('child-finalizer', () => {
  test("the parent's controller removes it", () => {
    assert.deepEqual(removal(CHILD_USERS.virtController), { allowed: true, denials: [], warnings: [], notices: [] });
  });

  test('anyone else is refused, told who may', () => {
    const d = removal(CHILD_USERS.alice);
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        `metadata.finalizers: Forbidden: "alice" may not remove finalizer "${VM_FINALIZER}" from Pod "${NAME}"; only its parent's controller may: system:serviceaccount:kubevirt:kubevirt-controller (break-glass: group system:masters)`,
      ],
    );
    assert.equal(
      d.denials[0]?.fix,
      `leave finalizer "${VM_FINALIZER}" in place: kubevirt.io/virt-controller removes it once the parent's cleanup has run`,
    );
  });

  test('break-glass may, with a warning and an audit annotation', () => {
    const out = handle(
      'validate',
      VM_POLICY,
      childInput({
        operation: 'UPDATE',
        user: CHILD_USERS.admin,
        oldObject: deletingPod([VM_FINALIZER]),
        object: deletingPod([]),
      }),
    );
    assert.equal(out.result.allowed, true);
    assert.deepEqual(out.result.warnings, [
      `break-glass: kube:admin may remove finalizer ${VM_FINALIZER} of Pod "${NAME}"; audited`,
    ]);
    assert.deepEqual(JSON.parse(out.result.auditAnnotations['break-glass-finalizer-removal'] ?? ''), {
      finalizer: VM_FINALIZER,
      kind: 'Pod',
      name: NAME,
      user: 'kube:admin',
    });
  });

  test("other finalizers are not hookkeeper's business", () => {
    assert.equal(removal(CHILD_USERS.alice, VM_POLICY, [VM_FINALIZER]).allowed, true);
  });

  test('relabelling a child does not free its finalizer', () => {
    const d = evaluate(
      VM_POLICY,
      childInput({
        operation: 'UPDATE',
        user: CHILD_USERS.alice,
        oldObject: deletingPod([VM_FINALIZER], { app: 'x' }),
        object: deletingPod([], { app: 'x' }),
      }),
    );
    assert.equal(d.allowed, false);
  });

  test('each rule guards its own finalizer for its own owner', () => {
    const cm = (finalizers: string[]): KubeObject => pgConfigMap({ finalizers });
    const input = (user: { username: string; groups: readonly string[] }) =>
      childInput({ kind: 'ConfigMap', operation: 'UPDATE', user, oldObject: cm([PG_FINALIZER]), object: cm([]) });
    assert.equal(evaluate(DB_POLICY, input(CHILD_USERS.pgo)).allowed, true);
    assert.equal(evaluate(DB_POLICY, input(CHILD_USERS.virtController)).allowed, false);
  });

  test('enforcement warn lets the removal through with a warning', () => {
    const policy: Policy = { ...VM_POLICY, enforcement: { ...VM_POLICY.enforcement, 'child-finalizer': 'warn' } };
    const d = removal(CHILD_USERS.alice, policy);
    assert.equal(d.allowed, true);
    assert.equal(d.warnings[0]?.rule, 'child-finalizer');
  });

  test('enforcement off: no check', () => {
    const policy: Policy = { ...VM_POLICY, enforcement: { ...VM_POLICY.enforcement, 'child-finalizer': 'off' } };
    assert.equal(removal(CHILD_USERS.alice, policy).allowed, true);
  });
});
