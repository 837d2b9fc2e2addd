// The `children` section of a policy file: defaults, and every problem reported with its path.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { AppError } from '../../src/errors.js';

const HEAD = `apiVersion: hookkeeper.io/v1alpha1
kind: Policy
owners:
  kubevirt.io/virt-controller:
    serviceAccounts: [{ namespace: kubevirt, name: kubevirt-controller }]
children:
`;

const RULE = `  - name: vm-pods
    match: { kinds: [{ group: "", kind: Pod }] }
    parent:
      apiVersion: kubevirt.io/v1
      kind: VirtualMachine
      resource: virtualmachines
      nameFrom: { label: vm.kubevirt.io/name }
`;

function problems(text: string): string[] {
  try {
    parsePolicy(text, 'policy.yaml');
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err.problems.map((p) => `${p.path}: ${p.message}`);
  }
  return [];
}

describe('children policy', () => {
  test('a minimal rule gets its defaults', () => {
    const policy = parsePolicy(HEAD + RULE, 'policy.yaml');
    assert.deepEqual(policy.children, [
      {
        name: 'vm-pods',
        match: { kinds: [{ group: '', kind: 'Pod' }] },
        parent: {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachine',
          resource: 'virtualmachines',
          nameFrom: { label: 'vm.kubevirt.io/name' },
          namespaced: true,
        },
        controller: true,
        blockOwnerDeletion: false,
        onMissingParent: 'deny',
        onExistingController: 'nonController',
        onDeletingParent: 'deny',
        finalizerRemovers: [],
      },
    ]);
    assert.ok(Object.isFrozen(policy.children[0]));
  });

  test('no children section: none', () => {
    assert.deepEqual(parsePolicy('apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n', 'p.yaml').children, []);
  });

  const cases: Array<[string, string, string[]]> = [
    [
      'an unqualified finalizer',
      `${RULE}    finalizer: cleanup\n    finalizerRemovers: [kubevirt.io/virt-controller]\n`,
      ['children[0].finalizer: "cleanup" is not fully qualified: use a domain you own, e.g. example.com/cleanup'],
    ],
    [
      'a finalizer that is no qualified name',
      `${RULE}    finalizer: example.com/a b\n    finalizerRemovers: [kubevirt.io/virt-controller]\n`,
      [
        "children[0].finalizer: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    [
      'a finalizer nobody may remove',
      `${RULE}    finalizer: example.com/cleanup\n`,
      [
        'children[0].finalizerRemovers: a rule with a finalizer must name the owners (keys of "owners") whose identities remove it, or only break-glass could',
      ],
    ],
    [
      'an unregistered remover',
      `${RULE}    finalizer: example.com/cleanup\n    finalizerRemovers: [someone]\n`,
      ['children[0].finalizerRemovers[0]: "someone" is not registered under "owners"'],
    ],
    [
      'removers without a finalizer',
      `${RULE}    finalizerRemovers: [kubevirt.io/virt-controller]\n`,
      [
        'children[0].finalizerRemovers: finalizerRemovers without a finalizer: set finalizer, or drop finalizerRemovers',
      ],
    ],
    [
      'a bad template',
      RULE.replace('{ label: vm.kubevirt.io/name }', '{ template: "${labels:x}" }'),
      [
        'children[0].parent.nameFrom.template: unknown placeholder ${labels:x}: use ${label:KEY}, ${annotation:KEY}, ${metadata.name} or ${metadata.namespace}',
      ],
    ],
    [
      'a bad label key in a template',
      RULE.replace('{ label: vm.kubevirt.io/name }', '{ template: "${label:a/b/c}" }'),
      [
        `children[0].parent.nameFrom.template: label key "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ],
    ],
    [
      'two name sources',
      RULE.replace('{ label: vm.kubevirt.io/name }', '{ label: a, annotation: b }'),
      ['children[0].parent.nameFrom: must NOT have more than 1 properties'],
    ],
    [
      'a plural with capitals',
      RULE.replace('resource: virtualmachines', 'resource: VirtualMachines'),
      ['children[0].parent.resource: must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"'],
    ],
    [
      'an unknown policy action',
      `${RULE}    onMissingParent: ignore\n`,
      ['children[0].onMissingParent: must be equal to one of the allowed values: deny, warn, allow'],
    ],
    ['a duplicate rule name', RULE + RULE, ['children[1].name: duplicate child rule name vm-pods']],
  ];
  for (const [name, rules, expected] of cases) {
    test(`refused: ${name}`, () => {
      assert.deepEqual(problems(HEAD + rules), expected);
    });
  }
});
