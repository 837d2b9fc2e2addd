// Rule child-parent: the parent must exist (onMissingParent), not be deleting (onDeletingParent) and be able to
// own the child (Kubernetes' scope rule), judged from injected lookup results.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluate, mutate } from '../../src/core/engine.js';
import type { ChildRule, ParentAction, Policy } from '../../src/core/policy.js';
import type { ParentFact } from '../../src/core/types.js';
import {
  childInput,
  ERROR,
  FOUND,
  launcherPod,
  NOT_FOUND,
  persistentVolume,
  TIMEOUT,
  VM_KEY,
  VM_POLICY,
  VM_UID,
} from '../fixtures/children.js';

const SRC = 'metadata.labels[vm.kubevirt.io/name]';
const PARENT = 'VirtualMachine "testvm" in namespace "vms"';
const RULE = 'policy rule "virtualmachine-pods"';

function policyWith(change: Partial<ChildRule>): Policy {
  return { ...VM_POLICY, children: VM_POLICY.children.map((r) => ({ ...r, ...change })) };
}

function review(policy: Policy, fact: ParentFact | undefined) {
  // Validation sees what the mutating webhook produced, as in the API server.
  const input = childInput({ object: launcherPod(), ...(fact ? { parents: { [VM_KEY]: fact } } : {}) });
  const m = mutate(policy, input);
  return evaluate(policy, m.mutated ? { ...input, object: m.mutated } : input);
}

describe('child-parent: lookup results under each policy', () => {
  const missing = `${SRC}: Not found: parent ${PARENT} does not exist`;
  const timeout = `${SRC}: Timeout: lookup timed out for parent ${PARENT}: no answer within 1500 ms; no owner reference was added`;
  const error = `${SRC}: Internal error: lookup failed for parent ${PARENT}: ${ERROR.found ? '' : ERROR.message}; no owner reference was added`;
  const deleting = `${SRC}: Forbidden: parent ${PARENT} is being deleted, so a new child would be orphaned or collected at once`;
  const cases: Array<[string, ParentFact, Partial<ChildRule>, 'deny' | 'warn' | 'none', string?]> = [
    ['found', FOUND(VM_UID), {}, 'none'],
    ['missing, deny', NOT_FOUND, { onMissingParent: 'deny' }, 'deny', `${missing} (${RULE}: onMissingParent deny)`],
    ['missing, warn', NOT_FOUND, { onMissingParent: 'warn' }, 'warn', `${missing} (${RULE}: onMissingParent warn)`],
    ['missing, allow', NOT_FOUND, { onMissingParent: 'allow' }, 'none'],
    ['timeout, deny', TIMEOUT, { onMissingParent: 'deny' }, 'deny', `${timeout} (${RULE}: onMissingParent deny)`],
    ['timeout, warn', TIMEOUT, { onMissingParent: 'warn' }, 'warn', `${timeout} (${RULE}: onMissingParent warn)`],
    // allow lets the child in, but a lookup that did not answer is never silent.
    ['timeout, allow', TIMEOUT, { onMissingParent: 'allow' }, 'warn', `${timeout} (${RULE}: onMissingParent allow)`],
    ['error, deny', ERROR, { onMissingParent: 'deny' }, 'deny', `${error} (${RULE}: onMissingParent deny)`],
    ['error, allow', ERROR, { onMissingParent: 'allow' }, 'warn', `${error} (${RULE}: onMissingParent allow)`],
    [
      'deleting, deny',
      FOUND(VM_UID, true),
      { onDeletingParent: 'deny' },
      'deny',
      `${deleting} (${RULE}: onDeletingParent deny)`,
    ],
    [
      'deleting, warn',
      FOUND(VM_UID, true),
      { onDeletingParent: 'warn' },
      'warn',
      `${deleting} (${RULE}: onDeletingParent warn)`,
    ],
    ['deleting, allow', FOUND(VM_UID, true), { onDeletingParent: 'allow' }, 'none'],
  ];
  for (const [name, fact, change, outcome, message] of cases) {
    test(name, () => {
      const d = review(policyWith(change), fact);
      assert.deepEqual(
        d.denials.map((v) => v.message),
        outcome === 'deny' ? [message] : [],
      );
      assert.deepEqual(
        d.warnings.map((v) => v.message),
        outcome === 'warn' ? [message] : [],
      );
      assert.equal(d.allowed, outcome !== 'deny');
    });
  }

  test('warnings reach the client prefixed with the rule', () => {
    const d = review(policyWith({ onMissingParent: 'warn' }), TIMEOUT);
    assert.equal(d.warnings[0]?.rule, 'child-parent');
  });

  test('UPDATE of a child is not judged again', () => {
    const pod = launcherPod({ stored: true, name: 'virt-launcher-testvm-x7k2p' });
    const d = evaluate(
      VM_POLICY,
      childInput({ operation: 'UPDATE', object: pod, oldObject: pod, parents: { [VM_KEY]: NOT_FOUND } }),
    );
    assert.deepEqual(d, { allowed: true, denials: [], warnings: [], notices: [] });
  });

  test('a reference to an earlier parent of the same name is refused: the garbage collector would delete the child', () => {
    const stale = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      name: 'testvm',
      uid: 'a-deleted-uid',
      controller: false,
    };
    const d = evaluate(
      VM_POLICY,
      childInput({ object: launcherPod({ ownerReferences: [stale] }), parents: { [VM_KEY]: FOUND(VM_UID) } }),
    );
    assert.ok(
      d.denials.some(
        (v) =>
          v.message ===
          `metadata.ownerReferences[0].uid: Invalid value: "a-deleted-uid": parent ${PARENT} has uid "${VM_UID}"; the garbage collector deletes a child whose owner no longer exists`,
      ),
    );
  });

  test('a label value no object name can have is judged by onMissingParent', () => {
    const pod = launcherPod();
    ((pod['metadata'] as Record<string, unknown>)['labels'] as Record<string, string>)['vm.kubevirt.io/name'] = '..';
    const d = evaluate(policyWith({ onMissingParent: 'warn' }), childInput({ object: pod, parents: {} }));
    assert.match(
      d.warnings[0]?.message ?? '',
      /^metadata\.labels\[vm\.kubevirt\.io\/name\]: Invalid value: "\.\.": names no VirtualMachine/,
    );
  });
});

describe('child-parent: scope', () => {
  const pvRule = (parent: Partial<ChildRule['parent']>, onMissingParent: ParentAction = 'allow'): Policy => ({
    ...VM_POLICY,
    children: [
      {
        ...(VM_POLICY.children[0] as ChildRule),
        name: 'volumes',
        match: { kinds: [{ group: '', kind: 'PersistentVolume' }] },
        parent: {
          apiVersion: 'snapshot.storage.k8s.io/v1',
          kind: 'VolumeSnapshotContent',
          resource: 'volumesnapshotcontents',
          namespaced: false,
          nameFrom: { label: 'example.com/snapshot' },
          ...parent,
        },
        controller: true,
        onMissingParent,
      },
    ],
  });
  const pv = persistentVolume({ 'example.com/snapshot': 'snapcontent-1' });

  test('a cluster-scoped child cannot be owned by a namespaced parent, whatever onMissingParent says', () => {
    const policy = pvRule({
      apiVersion: 'postgres-operator.crunchydata.com/v1beta1',
      kind: 'PostgresCluster',
      resource: 'postgresclusters',
      namespaced: true,
    });
    const input = childInput({ kind: 'PersistentVolume', object: pv, parents: {} });
    const d = evaluate(policy, input);
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'metadata.ownerReferences: Invalid value: "postgres-operator.crunchydata.com/v1beta1, Kind=PostgresCluster": cluster-scoped PersistentVolume "pvc-5e1f0a2b-7c3d-4e8f-9a1b-2c3d4e5f6a7b" cannot be owned by namespaced PostgresCluster "snapcontent-1": a cluster-scoped object may only have cluster-scoped owners (policy rule "volumes")',
      ],
    );
    assert.equal(mutate(policy, input).patch.length, 0);
  });

  test('a cluster-scoped parent may own a cluster-scoped child', () => {
    const key = 'snapshot.storage.k8s.io/v1/VolumeSnapshotContent//snapcontent-1';
    const input = childInput({
      kind: 'PersistentVolume',
      object: pv,
      parents: { [key]: { found: true, uid: 's-1', deleting: false, namespaced: false } },
    });
    const m = mutate(pvRule({}), input);
    assert.deepEqual((m.mutated?.['metadata'] as Record<string, unknown>)['ownerReferences'], [
      {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshotContent',
        name: 'snapcontent-1',
        uid: 's-1',
        controller: true,
        blockOwnerDeletion: false,
      },
    ]);
    assert.equal(evaluate(pvRule({}), { ...input, object: m.mutated }).allowed, true);
  });
});
