// Rule child-owner-reference: the ownerReference and finalizer added on CREATE, idempotently, never a second
// controller; and the validating side that refuses what the mutation could not or did not add.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import { evaluate, mutate } from '../../src/core/engine.js';
import type { ChildRule, Policy } from '../../src/core/policy.js';
import type { ParentFact } from '../../src/core/types.js';
import {
  childInput,
  DB_POLICY,
  ERROR,
  FOUND,
  launcherPod,
  NOT_FOUND,
  PG_FINALIZER,
  PG_KEY,
  PG_UID,
  pgConfigMap,
  pgService,
  TIMEOUT,
  VM_FINALIZER,
  VM_KEY,
  VM_POLICY,
  VM_UID,
} from '../fixtures/children.js';

function withRule(policy: Policy, change: Partial<ChildRule>): Policy {
  return { ...policy, children: policy.children.map((r) => ({ ...r, ...change })) };
}

describe('child-owner-reference: mutation', () => {
  test('a virt-launcher Pod gets its VirtualMachine as a non-controller owner, and the finalizer', () => {
    const m = mutate(VM_POLICY, childInput({ object: launcherPod(), parents: { [VM_KEY]: FOUND(VM_UID) } }));
    assert.deepEqual(m.patch, [
      {
        op: 'add',
        path: '/metadata/ownerReferences/1',
        value: {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachine',
          name: 'testvm',
          uid: VM_UID,
          controller: false,
          blockOwnerDeletion: false,
        },
      },
      { op: 'add', path: '/metadata/finalizers', value: [VM_FINALIZER] },
    ]);
    assert.deepEqual(m.changes, [
      `virtualmachine-pods: added non-controller owner reference to VirtualMachine "testvm" in namespace "vms" (uid ${VM_UID}): VirtualMachineInstance "testvm" already controls it`,
      `virtualmachine-pods: added finalizer "${VM_FINALIZER}"`,
    ]);
  });

  test('without another controller the parent becomes the controller', () => {
    const m = mutate(
      VM_POLICY,
      childInput({ object: launcherPod({ ownerReferences: [] }), parents: { [VM_KEY]: FOUND(VM_UID) } }),
    );
    const refs = (m.mutated?.['metadata'] as Record<string, unknown>)['ownerReferences'];
    assert.deepEqual(refs, [
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        name: 'testvm',
        uid: VM_UID,
        controller: true,
        blockOwnerDeletion: false,
      },
    ]);
  });

  test('re-invocation on the mutated object changes nothing', () => {
    const input = childInput({ object: launcherPod(), parents: { [VM_KEY]: FOUND(VM_UID) } });
    const first = mutate(VM_POLICY, input);
    assert.ok(first.mutated);
    const again = mutate(VM_POLICY, { ...input, object: first.mutated });
    assert.deepEqual(again, { mutated: null, patch: [], changes: [] });
  });

  test('a controller reference PGO already set is kept as it is; only the finalizer is added', () => {
    const m = mutate(
      DB_POLICY,
      childInput({
        kind: 'ConfigMap',
        object: pgConfigMap(),
        user: { username: 'system:serviceaccount:postgres-operator:pgo', groups: [] },
        parents: { [PG_KEY]: FOUND(PG_UID) },
      }),
    );
    assert.deepEqual(m.patch, [{ op: 'add', path: '/metadata/finalizers', value: [PG_FINALIZER] }]);
  });

  test('a reference to another version of the parent counts as present (matched by group, kind and name)', () => {
    const ref = {
      apiVersion: 'postgres-operator.crunchydata.com/v1alpha1',
      kind: 'PostgresCluster',
      name: 'hippo',
      uid: 'other',
      controller: true,
    };
    const m = mutate(
      DB_POLICY,
      childInput({
        kind: 'ConfigMap',
        object: pgConfigMap({ ownerReferences: [ref], finalizers: [PG_FINALIZER] }),
        parents: { [PG_KEY]: FOUND(PG_UID) },
      }),
    );
    assert.deepEqual(m.patch, []);
  });

  test('two rules naming two parents never produce a second controller reference', () => {
    const second: ChildRule = {
      ...(VM_POLICY.children[0] as ChildRule),
      name: 'pods-by-domain',
      parent: {
        ...(VM_POLICY.children[0] as ChildRule).parent,
        kind: 'VirtualMachineExport',
        resource: 'virtualmachineexports',
      },
    };
    const policy: Policy = { ...VM_POLICY, children: [...VM_POLICY.children, second] };
    const exportKey = 'kubevirt.io/v1/VirtualMachineExport/vms/testvm';
    const m = mutate(
      policy,
      childInput({
        object: launcherPod({ ownerReferences: [] }),
        parents: { [VM_KEY]: FOUND(VM_UID), [exportKey]: FOUND('e-1') },
      }),
    );
    const refs = (m.mutated?.['metadata'] as Record<string, unknown>)['ownerReferences'] as Array<
      Record<string, unknown>
    >;
    assert.deepEqual(
      refs.map((r) => [r['kind'], r['controller']]),
      [
        ['VirtualMachine', true],
        ['VirtualMachineExport', false],
      ],
    );
  });

  const noPatch: Array<[string, Policy, ParentFact | undefined]> = [
    ['parent missing', VM_POLICY, NOT_FOUND],
    ['lookup timed out', VM_POLICY, TIMEOUT],
    ['lookup failed', VM_POLICY, ERROR],
    ['parent deleting, onDeletingParent deny', VM_POLICY, FOUND(VM_UID, true)],
    ['no facts (offline review)', VM_POLICY, undefined],
    [
      'existing controller, onExistingController deny',
      withRule(VM_POLICY, { onExistingController: 'deny' }),
      FOUND(VM_UID),
    ],
    [
      'rule off',
      { ...VM_POLICY, enforcement: { ...VM_POLICY.enforcement, 'child-owner-reference': 'off' } },
      FOUND(VM_UID),
    ],
  ];
  for (const [name, policy, fact] of noPatch) {
    test(`no patch: ${name}`, () => {
      const m = mutate(policy, childInput({ object: launcherPod(), ...(fact ? { parents: { [VM_KEY]: fact } } : {}) }));
      assert.deepEqual(m, { mutated: null, patch: [], changes: [] });
    });
  }

  test('a deleting parent under onDeletingParent warn still gets its reference', () => {
    const m = mutate(
      withRule(VM_POLICY, { onDeletingParent: 'warn' }),
      childInput({ object: launcherPod(), parents: { [VM_KEY]: FOUND(VM_UID, true) } }),
    );
    assert.equal(m.patch.length, 2);
  });

  test('a Pod without the name label is no child of the rule', () => {
    const pod = launcherPod();
    delete ((pod['metadata'] as Record<string, unknown>)['labels'] as Record<string, string>)['vm.kubevirt.io/name'];
    assert.equal(mutate(VM_POLICY, childInput({ object: pod, parents: { [VM_KEY]: FOUND(VM_UID) } })).patch.length, 0);
  });

  test('UPDATE is never mutated', () => {
    const pod = launcherPod({ stored: true, name: 'virt-launcher-testvm-x7k2p' });
    assert.equal(
      mutate(
        VM_POLICY,
        childInput({ operation: 'UPDATE', object: pod, oldObject: pod, parents: { [VM_KEY]: FOUND(VM_UID) } }),
      ).patch.length,
      0,
    );
  });
});

describe('child-owner-reference: validation', () => {
  test('the review path (mutate, then validate the result) allows and warns which reference was added', () => {
    const out = handle(
      'mutate-then-validate',
      VM_POLICY,
      childInput({ object: launcherPod(), parents: { [VM_KEY]: FOUND(VM_UID) } }),
    );
    assert.equal(out.result.allowed, true);
    assert.deepEqual(out.result.warnings, [
      'VirtualMachine "testvm" in namespace "vms" is a non-controller owner: VirtualMachineInstance "testvm" already controls Pod "virt-launcher-testvm-*" (rule "virtualmachine-pods")',
    ]);
    assert.deepEqual(JSON.parse(out.result.auditAnnotations['child-non-controller-owner'] ?? ''), {
      rule: 'virtualmachine-pods',
      parent: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: 'testvm', uid: VM_UID },
      controller: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', name: 'testvm' },
    });
  });

  test('onExistingController deny refuses the child, naming its controller', () => {
    const d = evaluate(
      withRule(VM_POLICY, { onExistingController: 'deny' }),
      childInput({ object: launcherPod(), parents: { [VM_KEY]: FOUND(VM_UID) } }),
    );
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'metadata.ownerReferences[0]: Forbidden: Pod "virt-launcher-testvm-*" is already controlled by VirtualMachineInstance "testvm"; policy rule "virtualmachine-pods" would make VirtualMachine "testvm" in namespace "vms" its controller (onExistingController: deny)',
      ],
    );
  });

  test('a created child that the mutating webhook did not see is refused', () => {
    const d = evaluate(
      DB_POLICY,
      childInput({ kind: 'Service', object: pgService(), parents: { [PG_KEY]: FOUND(PG_UID) } }),
    );
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'metadata.ownerReferences: Required value: Service "hippo-primary" has no owner reference to its parent PostgresCluster "hippo" in namespace "db" (policy rule "postgrescluster-configmaps-services"); hookkeeper\'s mutating webhook adds it on create',
        `metadata.finalizers: Required value: Service "hippo-primary" lacks finalizer "${PG_FINALIZER}" of policy rule "postgrescluster-configmaps-services"; hookkeeper's mutating webhook adds it on create`,
      ],
    );
  });

  test('enforcement warn turns the refusal into warnings', () => {
    const policy: Policy = { ...DB_POLICY, enforcement: { ...DB_POLICY.enforcement, 'child-owner-reference': 'warn' } };
    const d = evaluate(
      policy,
      childInput({ kind: 'Service', object: pgService(), parents: { [PG_KEY]: FOUND(PG_UID) } }),
    );
    assert.equal(d.allowed, true);
    assert.equal(d.warnings.length, 2);
  });

  test('offline review (no facts) judges nothing it cannot know', () => {
    assert.deepEqual(evaluate(DB_POLICY, childInput({ kind: 'Service', object: pgService() })).denials, []);
  });

  test('the audit reports a stored child without its reference, from names alone', () => {
    const d = evaluate(DB_POLICY, {
      ...childInput({ operation: 'UPDATE', kind: 'Service', object: pgService(), oldObject: pgService() }),
      source: 'audit',
    });
    assert.deepEqual(
      d.denials.map((v) => v.path),
      ['metadata.ownerReferences', 'metadata.finalizers'],
    );
  });
});
