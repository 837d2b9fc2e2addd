// Rule template-hook-removed (issue #35 item 4): a hook removed from (or re-owned in) a MachineSet's,
// MachineDeployment's or ControlPlaneMachineSet's template is missing from every Machine the set makes from then on;
// warned unless the request is the hook's owner's (a registered identity, or RBAC's grant naming the owner).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { ownersToCheck } from '../../src/rules/owner-only-removal/owners-to-check.js';
import { templateRemovalRbacDecides } from '../../src/rules/template-hook-removed/rule.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject, Ownership, ReviewInput, UserInfo } from '../../src/core/types.js';
import { CAPI_USERS, capiInput, capiPolicy, capiTemplate, PRE_DRAIN } from '../fixtures/capi.js';
import { reviewInput } from '../fixtures/input.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';

const STORAGE = { name: 'MigrateVolumes', owner: 'team/storage' };
const BOB: UserInfo = { username: 'bob', groups: ['system:authenticated'] };

function machineSet(preDrain: HookSpec[]): KubeObject {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name: 'ci-worker-us-east-1a', namespace: 'openshift-machine-api' },
    spec: { replicas: 2, template: { spec: { lifecycleHooks: { preDrain } } } },
  };
}

function controlPlaneMachineSet(preDrain: HookSpec[]): KubeObject {
  return {
    apiVersion: 'machine.openshift.io/v1',
    kind: 'ControlPlaneMachineSet',
    metadata: { name: 'cluster', namespace: 'openshift-machine-api' },
    spec: {
      replicas: 3,
      template: {
        machineType: 'machines_v1beta1_machine_openshift_io',
        machines_v1beta1_machine_openshift_io: { spec: { lifecycleHooks: { preDrain } } },
      },
    },
  };
}

function setUpdate(
  before: HookSpec[],
  after: HookSpec[],
  user: UserInfo,
  o: { ownership?: Ownership; kind?: 'MachineSet' | 'ControlPlaneMachineSet' } = {},
): ReviewInput {
  const cpms = o.kind === 'ControlPlaneMachineSet';
  const make = cpms ? controlPlaneMachineSet : machineSet;
  const base = reviewInput({
    operation: 'UPDATE',
    object: make(after),
    oldObject: make(before),
    user,
    ...(cpms
      ? { kind: 'ControlPlaneMachineSet', version: 'v1', resource: 'controlplanemachinesets' }
      : { kind: 'MachineSet', resource: 'machinesets' }),
  });
  return o.ownership ? { ...base, context: { ownership: o.ownership } } : base;
}

const facts = (access: Ownership['access'], granted: string[] = []): Ownership => ({
  granted: new Set(granted),
  access,
  grantsKnown: true,
});

const warned = (policy: Policy, input: ReviewInput) =>
  evaluate(policy, input).warnings.filter((v) => v.rule === 'template-hook-removed');

describe('template-hook-removed: a hook removed from a template', () => {
  test("by someone other than its owner: allowed, warned that the set's new Machines lack it", () => {
    const d = evaluate(DEFAULT_POLICY, setUpdate([ETCD, STORAGE], [STORAGE], USERS.alice));
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.warnings.filter((v) => v.rule === 'template-hook-removed'),
      [
        {
          rule: 'template-hook-removed',
          path: 'spec.template.spec.lifecycleHooks.preDrain[0]',
          message:
            'every Machine this MachineSet makes from now on lacks preDrain hook "EtcdQuorumOperator" of "clusteroperator/etcd": removed from its template',
          fix: 'if its Machines still need it, put {name: EtcdQuorumOperator, owner: clusteroperator/etcd} back in spec.template.spec.lifecycleHooks.preDrain; its owner removes it without this warning',
          hook: { stage: 'preDrain', name: ETCD.name, owner: ETCD.owner },
          key: 'template-removal:preDrain:"EtcdQuorumOperator":"clusteroperator/etcd"',
        },
      ],
    );
  });

  test('by its registered owner: quiet', () => {
    assert.deepEqual(warned(DEFAULT_POLICY, setUpdate([ETCD], [], USERS.etcdOperator)), []);
  });

  test('by an identity RBAC lets act for the owner: quiet; asked about like a Machine removal', () => {
    const input = setUpdate([STORAGE], [], BOB);
    assert.deepEqual(ownersToCheck(DEFAULT_POLICY, input), [STORAGE.owner]);
    const granted = { ...input, context: { ownership: facts({ [STORAGE.owner]: 'allowed' }, [STORAGE.owner]) } };
    assert.deepEqual(warned(DEFAULT_POLICY, granted), []);
  });

  test('wildcard RBAC rights, a denied or unasked owner, and no RBAC at all: warned', () => {
    for (const ownership of [
      facts({ [STORAGE.owner]: 'wildcard' }),
      facts({ [STORAGE.owner]: 'denied' }),
      facts({}),
      undefined,
    ]) {
      const input = setUpdate([STORAGE], [], BOB, ownership ? { ownership } : {});
      assert.deepEqual(
        warned(DEFAULT_POLICY, input).map((v) => v.path),
        ['spec.template.spec.lifecycleHooks.preDrain[0]'],
      );
    }
  });

  test('break-glass is not the owner: warned', () => {
    assert.equal(warned(DEFAULT_POLICY, setUpdate([ETCD], [], USERS.admin)).length, 1);
  });

  test('re-owned: warned, as the old owner is gone from the new Machines', () => {
    const d = warned(DEFAULT_POLICY, setUpdate([STORAGE], [{ ...STORAGE, owner: 'team/other' }], USERS.alice));
    assert.deepEqual(
      d.map((v) => v.message),
      [
        'every Machine this MachineSet makes from now on lacks preDrain hook "MigrateVolumes" of "team/storage": re-owned in its template',
      ],
    );
  });

  test('a ControlPlaneMachineSet template', () => {
    const d = warned(DEFAULT_POLICY, setUpdate([ETCD], [], USERS.alice, { kind: 'ControlPlaneMachineSet' }));
    assert.deepEqual(
      d.map((v) => [v.path, v.message]),
      [
        [
          'spec.template.machines_v1beta1_machine_openshift_io.spec.lifecycleHooks.preDrain[0]',
          'every Machine this ControlPlaneMachineSet makes from now on lacks preDrain hook "EtcdQuorumOperator" of "clusteroperator/etcd": removed from its template',
        ],
      ],
    );
  });

  test('a Cluster API MachineDeployment template (annotations): warned, its owner quiet', () => {
    const key = `${PRE_DRAIN}/EtcdQuorumOperator`;
    const input = (user: UserInfo) =>
      capiInput({
        operation: 'UPDATE',
        object: capiTemplate('MachineDeployment', {}),
        oldObject: capiTemplate('MachineDeployment', { [key]: ETCD.owner }),
        user,
      });
    const d = warned(capiPolicy(), input(CAPI_USERS.alice));
    assert.deepEqual(
      d.map((v) => [v.path, v.message, v.fix]),
      [
        [
          `spec.template.metadata.annotations[${key}]`,
          'every Machine this MachineDeployment makes from now on lacks preDrain hook "EtcdQuorumOperator" of "clusteroperator/etcd": removed from its template',
          `if its Machines still need it, put ${key}: "clusteroperator/etcd" back in spec.template.metadata.annotations; its owner removes it without this warning`,
        ],
      ],
    );
    assert.deepEqual(warned(capiPolicy(), input(CAPI_USERS.etcdOperator)), []);
  });

  test('a Machine, a CREATE and a template keeping its hooks: not this rule', () => {
    const m = reviewInput({
      operation: 'UPDATE',
      object: machine({ preDrain: [] }),
      oldObject: machine({ preDrain: [STORAGE] }),
      user: USERS.alice,
    });
    assert.deepEqual(warned(DEFAULT_POLICY, m), []);
    const create = reviewInput({ operation: 'CREATE', object: machineSet([]), user: USERS.alice, kind: 'MachineSet' });
    assert.deepEqual(warned(DEFAULT_POLICY, create), []);
    assert.deepEqual(warned(DEFAULT_POLICY, setUpdate([ETCD, STORAGE], [STORAGE, ETCD], USERS.alice)), []);
  });

  test('enforcement: deny refuses it, off says nothing and asks RBAC nothing', () => {
    const deny: Policy = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'template-hook-removed': 'deny' },
    };
    const d = evaluate(deny, setUpdate([STORAGE], [], USERS.alice));
    assert.deepEqual(
      d.denials.map((v) => v.rule),
      ['template-hook-removed'],
    );
    const off: Policy = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'template-hook-removed': 'off' },
    };
    const input = setUpdate([STORAGE], [], BOB);
    assert.deepEqual(warned(off, input), []);
    assert.deepEqual(ownersToCheck(off, input), []);
  });
});

test('RBAC is asked about a removed template hook’s owner where the rule’s predicate turns on its answer', () => {
  // passes: the requester acts for the owner, or a grant names it; only the second needs RBAC.
  assert.equal(templateRemovalRbacDecides(false), true);
  assert.equal(templateRemovalRbacDecides(true), false);
  const etcd = setUpdate([ETCD], [], {
    username: 'system:serviceaccount:openshift-etcd-operator:etcd-operator',
    groups: [],
  });
  assert.deepEqual(ownersToCheck(DEFAULT_POLICY, etcd), []);
  assert.deepEqual(ownersToCheck(DEFAULT_POLICY, setUpdate([ETCD], [], BOB)), [ETCD.owner]);
});
