// Policy files: defaults, overrides, and every problem reported at once with file, path and line.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/config/defaults.js';
import { parsePolicy } from '../../src/config/load.js';
import { AppError } from '../../src/errors.js';

function problemsOf(text: string): Array<{ line?: number; path?: string; message: string }> {
  try {
    parsePolicy(text, 'policy.yaml');
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'CONFIG_INVALID');
    return err.problems.map((p) => ({ ...(p.line === undefined ? {} : { line: p.line }), ...(p.path === undefined ? {} : { path: p.path }), message: p.message }));
  }
  assert.fail('expected the policy to be rejected');
}

describe('policy files', () => {
  test('the smallest file is the embedded default', () => {
    assert.deepEqual(parsePolicy('apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n', 'p.yaml'), DEFAULT_POLICY);
  });

  test('fields given replace the default; enforcement merges rule by rule', () => {
    const p = parsePolicy([
      'apiVersion: hookkeeper.io/v1alpha1',
      'kind: Policy',
      'enforcement:',
      '  hook-naming: warn',
      'strictOwners: true',
      'owners:',
      '  storage-operator:',
      '    serviceAccounts: [{namespace: storage, name: operator}]',
      'defaultHooks: []',
    ].join('\n'), 'p.yaml');
    assert.equal(p.enforcement['hook-naming'], 'warn');
    assert.equal(p.enforcement['deletion-freeze'], 'deny');
    assert.equal(p.strictOwners, true);
    assert.deepEqual(p.owners, { 'storage-operator': { users: [], groups: [], serviceAccounts: [{ namespace: 'storage', name: 'operator' }] } });
    assert.deepEqual(p.defaultHooks, []);
    assert.deepEqual(p.reservedHooks, DEFAULT_POLICY.reservedHooks);
    assert.ok(Object.isFrozen(p) && Object.isFrozen(p.owners));
  });

  test('every schema problem is listed with its path and line', () => {
    assert.deepEqual(problemsOf([
      'apiVersion: hookkeeper.io/v1alpha1',
      'kind: Policy',
      'enforcement:',
      '  hook-naming: block',
      'strictOwner: true',
      'breakGlass:',
      '  groups: system:masters',
    ].join('\n')), [
      { line: 1, path: '/', message: 'must NOT have additional properties (strictOwner)' },
      { line: 4, path: '/enforcement/hook-naming', message: 'must be equal to one of the allowed values: deny, warn, off' },
      { line: 7, path: '/breakGlass/groups', message: 'must be array' },
    ]);
  });

  test('hooks in the policy obey the hook naming rules', () => {
    assert.deepEqual(problemsOf([
      'apiVersion: hookkeeper.io/v1alpha1',
      'kind: Policy',
      'reservedHooks:',
      '  - {name: "Bad Name", owner: ok-owner}',
      '  - {name: Good, owner: x}',
    ].join('\n')), [
      { line: 4, path: '/reservedHooks/0/name', message: `Invalid value: "Bad Name": /reservedHooks/0/name in body should match '${'^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'}'` },
      { line: 5, path: '/reservedHooks/1/owner', message: 'Invalid value: "x": /reservedHooks/1/owner in body should be at least 3 chars long' },
    ]);
  });

  test('unparseable YAML names the line', () => {
    assert.deepEqual(problemsOf('apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nowners: [unclosed\n'), [
      { line: 4, message: 'Flow sequence in block collection must be sufficiently indented and end with a ]' },
    ]);
  });

  test('wrong apiVersion or kind, or several documents, are refused', () => {
    assert.equal(problemsOf('apiVersion: v1\nkind: ConfigMap\n').length, 2);
    assert.match(problemsOf('apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n---\napiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n')[0]?.message ?? '', /expected one YAML document, found 2/);
  });
});
