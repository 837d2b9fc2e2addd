// Policy files: defaults, overrides, and every problem reported at once with file, path and line.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { WILDCARD_PROBE_OWNER } from '../../src/core/ownership.js';
import { HOOK_NAME_PATTERN } from '../../src/rules/hook-naming/rule.js';
import { policyProblems, type PolicyProblem } from '../helpers/policy-problems.js';

const problemsOf = (text: string): PolicyProblem[] => policyProblems(text);

describe('policy files', () => {
  test('the smallest file is the embedded default', () => {
    assert.deepEqual(parsePolicy('apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n', 'p.yaml'), DEFAULT_POLICY);
  });

  test('fields given replace the default; enforcement merges rule by rule', () => {
    const p = parsePolicy(
      [
        'apiVersion: hookkeeper.io/v1alpha1',
        'kind: Policy',
        'enforcement:',
        '  hook-naming: warn',
        'strictOwners: true',
        'owners:',
        '  storage-operator:',
        '    serviceAccounts: [{namespace: storage, name: operator}]',
        'defaultHooks: []',
      ].join('\n'),
      'p.yaml',
    );
    assert.equal(p.enforcement['hook-naming'], 'warn');
    assert.equal(p.enforcement['deletion-freeze'], 'deny');
    assert.equal(p.strictOwners, true);
    assert.deepEqual(p.owners, {
      'storage-operator': { users: [], groups: [], serviceAccounts: [{ namespace: 'storage', name: 'operator' }] },
    });
    assert.deepEqual(p.defaultHooks, []);
    assert.deepEqual(p.reservedHooks, DEFAULT_POLICY.reservedHooks);
    assert.ok(Object.isFrozen(p) && Object.isFrozen(p.owners));
  });

  test('every schema problem is listed with its path and line', () => {
    assert.deepEqual(
      problemsOf(
        [
          'apiVersion: hookkeeper.io/v1alpha1',
          'kind: Policy',
          'enforcement:',
          '  hook-naming: block',
          'strictOwner: true',
          'breakGlass:',
          '  groups: system:masters',
        ].join('\n'),
      ),
      [
        {
          line: 4,
          path: 'enforcement.hook-naming',
          message: 'must be equal to one of the allowed values: deny, warn, off',
        },
        { line: 5, path: 'strictOwner', message: 'unknown key "strictOwner": did you mean "strictOwners"?' },
        { line: 7, path: 'breakGlass.groups', message: 'must be array' },
      ],
    );
  });

  test('schema and semantic problems are listed together, each at the line of its key, in file order', () => {
    assert.deepEqual(
      problemsOf(
        [
          'apiVersion: hookkeeper.io/v1alpha1',
          'kind: Policy',
          'enforcement:',
          '  hook-naming: block',
          'reservedHooks:',
          '  - {name: "Bad Name", owner: clusteroperator/etcd}',
          'breakGlass:',
          '  users: []',
          '  grups: [admins]',
          'owners:',
          '  x:',
          '    users: [a]',
          'defaultHooks:',
          '  - name: one',
          '    match: {kinds: [{group: cluster.x-k8s.io, kind: Machine}]}',
          '    stage: preDrain',
          '    hook: {name: example.com/quorum, owner: someone}',
          '  - name: one',
          '    stage: preTerminate',
          '    hook: {name: "Bad Name", owner: someone}',
        ].join('\n'),
      ),
      [
        {
          line: 4,
          path: 'enforcement.hook-naming',
          message: 'must be equal to one of the allowed values: deny, warn, off',
        },
        {
          line: 6,
          path: 'reservedHooks[0].name',
          message: `Invalid value: "Bad Name": reservedHooks[0].name in body should match '${HOOK_NAME_PATTERN}'`,
        },
        { line: 9, path: 'breakGlass.grups', message: 'unknown key "grups": did you mean "groups"?' },
        {
          line: 17,
          path: 'defaultHooks[0].hook.name',
          message:
            "as Cluster API annotation key \"pre-drain.delete.hook.machine.cluster.x-k8s.io/example.com/quorum\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        },
        { line: 18, path: 'defaultHooks[1]', message: "must have required property 'match'" },
        { line: 18, path: 'defaultHooks[1].name', message: 'duplicate default hook rule name one' },
        {
          line: 20,
          path: 'defaultHooks[1].hook.name',
          message: `Invalid value: "Bad Name": defaultHooks[1].hook.name in body should match '${HOOK_NAME_PATTERN}'`,
        },
      ],
    );
  });

  test('a section of the wrong shape is reported at its key and does not stop the checks of the others', () => {
    assert.deepEqual(
      problemsOf(
        [
          'apiVersion: hookkeeper.io/v1alpha1',
          'kind: Policy',
          'reservedHooks:',
          '  name: EtcdQuorumOperator',
          'defaultHooks: 3',
          'children:',
          '  - {name: c, match: 7, parent: {apiVersion: v1, kind: Node, resource: nodes, nameFrom: {label: "bad key!"}}}',
          'owners: {"a": {users: [u]}}',
          'breakGlass: {groups: [x, x]}',
        ].join('\n'),
      ).map((p) => `${p.line} ${p.path}`),
      [
        '3 reservedHooks',
        '5 defaultHooks',
        '7 children[0].match',
        '7 children[0].parent.nameFrom.label',
        '9 breakGlass.groups',
      ],
    );
  });

  test('hooks in the policy obey the hook naming rules', () => {
    assert.deepEqual(
      problemsOf(
        [
          'apiVersion: hookkeeper.io/v1alpha1',
          'kind: Policy',
          'reservedHooks:',
          '  - {name: "Bad Name", owner: ok-owner}',
          '  - {name: Good, owner: x}',
        ].join('\n'),
      ),
      [
        {
          line: 4,
          path: 'reservedHooks[0].name',
          message: `Invalid value: "Bad Name": reservedHooks[0].name in body should match '${'^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'}'`,
        },
        {
          line: 5,
          path: 'reservedHooks[1].owner',
          message: 'Invalid value: "x": reservedHooks[1].owner in body should be at least 3 chars long',
        },
      ],
    );
  });

  test('unparseable YAML names the line', () => {
    assert.deepEqual(problemsOf('apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nowners: [unclosed\n'), [
      { line: 4, message: 'Flow sequence in block collection must be sufficiently indented and end with a ]' },
    ]);
  });

  test('wrong apiVersion or kind, or several documents, are refused', () => {
    assert.equal(problemsOf('apiVersion: v1\nkind: ConfigMap\n').length, 2);
    assert.match(
      problemsOf(
        'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n---\napiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n',
      )[0]?.message ?? '',
      /expected one YAML document, found 2/,
    );
  });

  test('unverifiedRemoval: warn by default; allow, warn or deny; nothing else', () => {
    const head = 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n';
    assert.equal(DEFAULT_POLICY.unverifiedRemoval, 'warn');
    assert.equal(parsePolicy(head, 'p.yaml').unverifiedRemoval, 'warn');
    for (const v of ['allow', 'warn', 'deny'] as const)
      assert.equal(parsePolicy(`${head}unverifiedRemoval: ${v}\n`, 'p.yaml').unverifiedRemoval, v);
    assert.deepEqual(problemsOf(`${head}unverifiedRemoval: ignore\n`), [
      { line: 3, path: 'unverifiedRemoval', message: 'must be equal to one of the allowed values: allow, warn, deny' },
    ]);
  });
  test('wildcardGrants: deny by default; deny or warn; nothing else', () => {
    const head = 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n';
    assert.equal(DEFAULT_POLICY.wildcardGrants, 'deny');
    assert.equal(parsePolicy(head, 'p.yaml').wildcardGrants, 'deny');
    for (const v of ['deny', 'warn'] as const)
      assert.equal(parsePolicy(`${head}wildcardGrants: ${v}\n`, 'p.yaml').wildcardGrants, v);
    assert.deepEqual(problemsOf(`${head}wildcardGrants: allow\n`), [
      { line: 3, path: 'wildcardGrants', message: 'must be equal to one of the allowed values: deny, warn' },
    ]);
  });

  test('the reserved wildcard probe owner cannot be registered, reserved or given to a default hook', () => {
    const probe = WILDCARD_PROBE_OWNER;
    const text = [
      'apiVersion: hookkeeper.io/v1alpha1',
      'kind: Policy',
      'owners:',
      `  ${probe}: {users: [alice]}`,
      'reservedHooks:',
      `  - {name: Probe, owner: ${probe}}`,
      'defaultHooks:',
      '  - name: probe',
      '    match: {kinds: [{group: machine.openshift.io, kind: Machine}]}',
      '    stage: preDrain',
      `    hook: {name: Probe, owner: ${probe}}`,
      '',
    ].join('\n');
    const reserved = `${probe} is reserved: hookkeeper asks RBAC about it to tell wildcard rights from a grant naming an owner`;
    assert.deepEqual(problemsOf(text), [
      { line: 4, path: `owners[${JSON.stringify(probe)}]`, message: reserved },
      { line: 6, path: 'reservedHooks[0].owner', message: reserved },
      { line: 11, path: 'defaultHooks[0].hook.owner', message: reserved },
    ]);
  });
});
