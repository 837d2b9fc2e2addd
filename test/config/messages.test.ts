// Policy problems in the user's terms: expected values named, duplicate keys named without hiding the rest, paths
// as written in YAML, and the nearest known key for an unknown one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { describeError } from '../../src/errors.js';
import { policyProblems, type PolicyProblem } from '../helpers/policy-problems.js';

const problemsOf = (lines: string[]): PolicyProblem[] => policyProblems([...lines, ''].join('\n'));

describe('policy messages', () => {
  test('a constant names the value it must be', () => {
    assert.deepEqual(problemsOf(['apiVersion: hookkeeper.io/v1', 'kind: Polcy']), [
      { line: 1, path: 'apiVersion', message: 'must be "hookkeeper.io/v1alpha1"' },
      { line: 2, path: 'kind', message: 'must be "Policy"' },
    ]);
  });

  test('a duplicate key is named, and the other problems are still reported', () => {
    assert.deepEqual(
      problemsOf([
        'apiVersion: hookkeeper.io/v1alpha1',
        'kind: Policy',
        'strictOwners: true',
        'breakGlass:',
        '  groups: [a]',
        '  groups: [b]',
        'strictOwners: false',
        'unverifiedRemoval: sometimes',
      ]),
      [
        { line: 6, path: 'breakGlass.groups', message: 'duplicate key "groups" (first at line 5)' },
        { line: 7, path: 'strictOwners', message: 'duplicate key "strictOwners" (first at line 3)' },
        {
          line: 8,
          path: 'unverifiedRemoval',
          message: 'must be equal to one of the allowed values: allow, warn, deny',
        },
      ],
    );
  });

  test('paths print as written: quoted keys, indexes in brackets', () => {
    const problems = problemsOf([
      'apiVersion: hookkeeper.io/v1alpha1',
      'kind: Policy',
      'owners:',
      '  team/storage:',
      '    serviceAccounts: storage',
      'reservedHooks:',
      '  - {name: "Bad Name", owner: team/storage}',
    ]);
    assert.deepEqual(
      problems.map((p) => p.path),
      ['owners["team/storage"].serviceAccounts', 'reservedHooks[0].name'],
    );
    assert.ok(problems[1]?.message.includes('reservedHooks[0].name in body should match'), problems[1]?.message);
    const err = (() => {
      try {
        parsePolicy(
          ['kind: Policy', 'apiVersion: hookkeeper.io/v1alpha1', 'owners: {"a": {users: x}}'].join('\n'),
          'p.yaml',
        );
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.match(describeError(err), /^ {2}p\.yaml:3 owners\.a\.users: must be array$/m);
  });

  test('an unknown key gets the nearest known key of that object', () => {
    assert.deepEqual(
      problemsOf([
        'apiVersion: hookkeeper.io/v1alpha1',
        'kind: Policy',
        'strictOwner: true',
        'breakGlass: {grups: [admins]}',
        'defaultHooks:',
        '  - name: x',
        '    match: {kind: [{group: machine.openshift.io, kind: Machine}]}',
        '    stage: preDrain',
        '    hook: {name: Hook, owner: someone}',
        'zzz: 1',
      ]),
      [
        { line: 3, path: 'strictOwner', message: 'unknown key "strictOwner": did you mean "strictOwners"?' },
        { line: 4, path: 'breakGlass.grups', message: 'unknown key "grups": did you mean "groups"?' },
        { line: 7, path: 'defaultHooks[0].match', message: "must have required property 'kinds'" },
        { line: 7, path: 'defaultHooks[0].match.kind', message: 'unknown key "kind": did you mean "kinds"?' },
        {
          line: 10,
          path: 'zzz',
          message:
            'unknown key "zzz" (known keys: apiVersion, kind, enforcement, reservedHooks, owners, impliedOwners, strictOwners, unverifiedRemoval, wildcardGrants, breakGlass, defaultHooks, quorumHooks, children, maxHooksPerStage, migration, machineControllers)',
        },
      ],
    );
  });
});
