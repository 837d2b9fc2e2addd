// Rule hook-naming: the openshift/api CRD constraints, worded as the API server words them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { HOOK_NAME_PATTERN } from '../../src/rules/hook-naming/rule.js';
import { machine, USERS } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';

const P = 'spec.lifecycleHooks.preDrain[0]';

function denialsFor(hook: Record<string, unknown>): string[] {
  const obj = machine({ role: 'worker' });
  (obj['spec'] as Record<string, unknown>)['lifecycleHooks'] = { preDrain: [hook] };
  const d = evaluate(DEFAULT_POLICY, reviewInput({ operation: 'CREATE', object: obj, user: USERS.machineApi }));
  return d.denials.map((v) => v.message);
}

describe('hook-naming', () => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['valid CamelCase', { name: 'MigrateVolumes', owner: 'storage-team' }, []],
    ['valid prefixed name', { name: 'storage.example.com/MigrateVolumes', owner: 'storage-team' }, []],
    ['valid name of exactly 3 characters', { name: 'abc', owner: 'own' }, []],
    ['missing name', { owner: 'storage-team' }, [`${P}.name: Required value`]],
    ['missing owner', { name: 'MigrateVolumes' }, [`${P}.owner: Required value`]],
    [
      'name too short',
      { name: 'ab', owner: 'storage-team' },
      [`${P}.name: Invalid value: "ab": ${P}.name in body should be at least 3 chars long`],
    ],
    [
      'owner too short',
      { name: 'MigrateVolumes', owner: 'me' },
      [`${P}.owner: Invalid value: "me": ${P}.owner in body should be at least 3 chars long`],
    ],
    [
      'name with a space',
      { name: 'Migrate Volumes', owner: 'storage-team' },
      [`${P}.name: Invalid value: "Migrate Volumes": ${P}.name in body should match '${HOOK_NAME_PATTERN}'`],
    ],
    [
      'name ending in a dash',
      { name: 'migrate-', owner: 'storage-team' },
      [`${P}.name: Invalid value: "migrate-": ${P}.name in body should match '${HOOK_NAME_PATTERN}'`],
    ],
    [
      'uppercase prefix',
      { name: 'Example.com/Hook', owner: 'storage-team' },
      [`${P}.name: Invalid value: "Example.com/Hook": ${P}.name in body should match '${HOOK_NAME_PATTERN}'`],
    ],
    [
      'two slashes',
      { name: 'a.io/b/c', owner: 'storage-team' },
      [`${P}.name: Invalid value: "a.io/b/c": ${P}.name in body should match '${HOOK_NAME_PATTERN}'`],
    ],
    [
      'name of 257 characters',
      { name: 'A'.repeat(257), owner: 'storage-team' },
      [`${P}.name: Too long: may not be more than 256 bytes`],
    ],
    [
      'owner of 513 characters',
      { name: 'Hook', owner: 'o'.repeat(513) },
      [`${P}.owner: Too long: may not be more than 512 bytes`],
    ],
    ['owner may hold any characters', { name: 'Hook', owner: 'Team Ops / on-call #42 ✓' }, []],
    [
      'name that is a number',
      { name: 42, owner: 'storage-team' },
      [`${P}.name: Invalid value: "integer": ${P}.name in body must be of type string: "integer"`],
    ],
    [
      'both short and invalid',
      { name: '-a', owner: 'storage-team' },
      [
        `${P}.name: Invalid value: "-a": ${P}.name in body should be at least 3 chars long`,
        `${P}.name: Invalid value: "-a": ${P}.name in body should match '${HOOK_NAME_PATTERN}'`,
      ],
    ],
  ];
  for (const [title, hook, expected] of cases) {
    test(title, () => assert.deepEqual(denialsFor(hook), expected));
  }

  test('counts characters, not bytes, as OpenAPI validation does', () => {
    assert.deepEqual(denialsFor({ name: 'Hook', owner: 'ééé' }), []);
  });

  test('a stanza that is not a list is reported, not crashed on', () => {
    const obj = machine({ role: 'worker' });
    (obj['spec'] as Record<string, unknown>)['lifecycleHooks'] = { preDrain: 'EtcdQuorumOperator' };
    const d = evaluate(DEFAULT_POLICY, reviewInput({ operation: 'CREATE', object: obj }));
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.denials.map((v) => [v.rule, v.path]),
      [['hook-naming', 'spec.lifecycleHooks.preDrain']],
    );
  });

  test('MachineSet templates are checked at their own path', () => {
    const ms = {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineSet',
      metadata: { name: 'ci-worker-us-east-1a', namespace: 'openshift-machine-api' },
      spec: {
        replicas: 2,
        template: { spec: { lifecycleHooks: { preTerminate: [{ name: 'x', owner: 'storage-team' }] } } },
      },
    };
    const d = evaluate(
      DEFAULT_POLICY,
      reviewInput({ operation: 'CREATE', object: ms, kind: 'MachineSet', resource: 'machinesets' }),
    );
    const p = 'spec.template.spec.lifecycleHooks.preTerminate[0].name';
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [`${p}: Invalid value: "x": ${p} in body should be at least 3 chars long`],
    );
  });

  test('ControlPlaneMachineSet templates are checked at their own path', () => {
    const cpms = {
      apiVersion: 'machine.openshift.io/v1',
      kind: 'ControlPlaneMachineSet',
      metadata: { name: 'cluster', namespace: 'openshift-machine-api' },
      spec: {
        replicas: 3,
        state: 'Active',
        template: {
          machineType: 'machines_v1beta1_machine_openshift_io',
          machines_v1beta1_machine_openshift_io: {
            metadata: { labels: { 'machine.openshift.io/cluster-api-machine-role': 'master' } },
            spec: { lifecycleHooks: { preDrain: [{ name: 'Bad Name', owner: 'clusteroperator/etcd' }] } },
          },
        },
      },
    };
    const d = evaluate(
      DEFAULT_POLICY,
      reviewInput({
        operation: 'UPDATE',
        object: cpms,
        oldObject: cpms,
        version: 'v1',
        kind: 'ControlPlaneMachineSet',
        resource: 'controlplanemachinesets',
      }),
    );
    // The stored object already had the bad name: ratcheting turns it into a warning on UPDATE.
    assert.equal(d.allowed, true);
    assert.equal(
      d.warnings[0]?.path,
      'spec.template.machines_v1beta1_machine_openshift_io.spec.lifecycleHooks.preDrain[0].name',
    );
    const created = evaluate(
      DEFAULT_POLICY,
      reviewInput({
        operation: 'CREATE',
        object: cpms,
        version: 'v1',
        kind: 'ControlPlaneMachineSet',
        resource: 'controlplanemachinesets',
      }),
    );
    assert.equal(created.allowed, false);
  });

  test('enforcement warn allows with a warning; off skips the rule', () => {
    const obj = machine({ role: 'worker', preDrain: [{ name: 'ab', owner: 'storage-team' }] });
    const input = reviewInput({ operation: 'CREATE', object: obj });
    const warn = evaluate(
      { ...DEFAULT_POLICY, enforcement: { ...DEFAULT_POLICY.enforcement, 'hook-naming': 'warn' } },
      input,
    );
    assert.equal(warn.allowed, true);
    assert.equal(warn.warnings.length, 1);
    const off = evaluate(
      { ...DEFAULT_POLICY, enforcement: { ...DEFAULT_POLICY.enforcement, 'hook-naming': 'off' } },
      input,
    );
    assert.deepEqual([off.allowed, off.warnings.length], [true, 0]);
  });
});
