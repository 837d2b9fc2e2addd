// What transports look up for child rules (parentRequests, parentKinds), and the parent-name template syntax.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parentKinds, parentRequests } from '../../src/core/children.js';
import type { ChildRule, Policy } from '../../src/core/policy.js';
import { parseNameTemplate, resolveParentName } from '../../src/rules/children-bind.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import {
  childInput,
  DB_POLICY,
  launcherPod,
  pgConfigMap,
  persistentVolume,
  VM_KEY,
  VM_POLICY,
} from '../fixtures/children.js';

const VM_RULE = VM_POLICY.children[0] as ChildRule;

describe('parentRequests', () => {
  test('CREATE of a child asks for its parent, with what the API path needs', () => {
    assert.deepEqual(parentRequests(VM_POLICY, childInput({ object: launcherPod() })), [
      {
        key: VM_KEY,
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        resource: 'virtualmachines',
        namespaced: true,
        namespace: 'vms',
        name: 'testvm',
      },
    ]);
  });

  test('only child CREATEs pay for a lookup', () => {
    const pod = launcherPod({ stored: true, name: 'virt-launcher-testvm-x7k2p' });
    assert.deepEqual(parentRequests(VM_POLICY, childInput({ operation: 'UPDATE', object: pod, oldObject: pod })), []);
    assert.deepEqual(parentRequests(VM_POLICY, childInput({ operation: 'DELETE', object: null, oldObject: pod })), []);
    assert.deepEqual(parentRequests(DEFAULT_POLICY, childInput({ object: launcherPod() })), []);
    assert.deepEqual(parentRequests(VM_POLICY, childInput({ kind: 'ConfigMap', object: pgConfigMap() })), []);
  });

  test('the audit asks for the parents of stored children', () => {
    const pod = launcherPod({ stored: true, name: 'virt-launcher-testvm-x7k2p' });
    assert.equal(
      parentRequests(VM_POLICY, {
        ...childInput({ operation: 'UPDATE', object: pod, oldObject: pod }),
        source: 'audit',
      }).length,
      1,
    );
  });

  test('one request per parent, however many rules name it', () => {
    const policy: Policy = {
      ...VM_POLICY,
      children: [VM_RULE, { ...VM_RULE, name: 'again', finalizer: 'example.com/other' }],
    };
    assert.equal(parentRequests(policy, childInput({ object: launcherPod() })).length, 1);
  });

  test('no request when both lookup rules are off', () => {
    const policy: Policy = {
      ...VM_POLICY,
      enforcement: { ...VM_POLICY.enforcement, 'child-owner-reference': 'off', 'child-parent': 'off' },
    };
    assert.deepEqual(parentRequests(policy, childInput({ object: launcherPod() })), []);
  });

  test('no request for a parent that cannot exist (namespaced owner of a cluster-scoped child)', () => {
    const policy: Policy = {
      ...DB_POLICY,
      children: [
        {
          ...VM_RULE,
          match: { kinds: [{ group: '', kind: 'PersistentVolume' }] },
          parent: { ...VM_RULE.parent, nameFrom: { label: 'example.com/vm' } },
        },
      ],
    };
    assert.deepEqual(
      parentRequests(
        policy,
        childInput({ kind: 'PersistentVolume', object: persistentVolume({ 'example.com/vm': 'testvm' }) }),
      ),
      [],
    );
  });

  test('parentKinds lists each parent kind once', () => {
    const policy: Policy = { ...VM_POLICY, children: [VM_RULE, { ...VM_RULE, name: 'again' }, ...DB_POLICY.children] };
    assert.deepEqual(
      parentKinds(policy).map((k) => `${k.apiVersion}/${k.kind}`),
      ['kubevirt.io/v1/VirtualMachine', 'postgres-operator.crunchydata.com/v1beta1/PostgresCluster'],
    );
  });
});

describe('name templates', () => {
  const pod = launcherPod({ name: 'virt-launcher-testvm-x7k2p' });
  const cases: Array<[string, string | undefined]> = [
    ['${label:vm.kubevirt.io/name}', 'testvm'],
    ['${label:vm.kubevirt.io/name}-export', 'testvm-export'],
    ['vm-${annotation:kubevirt.io/domain}', 'vm-testvm'],
    ['${metadata.namespace}-${label:kubevirt.io/size}', 'vms-small'],
    ['${metadata.name}', 'virt-launcher-testvm-x7k2p'],
    ['cluster', 'cluster'],
    ['${label:missing.example.com/x}', undefined],
  ];
  for (const [template, expected] of cases) {
    test(`${template} -> ${String(expected)}`, () => {
      assert.equal(resolveParentName({ template }, pod, 'vms'), expected);
    });
  }

  test('a generateName child has no ${metadata.name} yet', () => {
    assert.equal(resolveParentName({ template: '${metadata.name}' }, launcherPod(), 'vms'), undefined);
  });

  const errors: Array<[string, RegExp]> = [
    ['${labels:x}', /unknown placeholder \$\{labels:x\}/],
    ['${label:}', /unknown placeholder/],
    ['${metadata.uid}', /unknown placeholder/],
    ['vm-$name', /does not start a \$\{\.\.\.\} placeholder/],
    ['${label:x', /does not start a \$\{\.\.\.\} placeholder/],
  ];
  for (const [template, error] of errors) {
    test(`refused: ${template}`, () => {
      const parsed = parseNameTemplate(template);
      assert.ok('error' in parsed);
      assert.match(parsed.error, error);
    });
  }
});
