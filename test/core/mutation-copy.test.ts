// Mutation copies only where rules write (patch.ts copyForWrites): every mutating rule runs here on a deeply
// frozen request object, where a write anywhere outside its declared paths throws, and the patch must turn
// the original into exactly the mutated object.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { mutate } from '../../src/core/engine.js';
import { cloneJson, copyForWrites } from '../../src/core/patch.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject, ReviewInput } from '../../src/core/types.js';
import { CAPI_USERS, capiInput, capiMachine, capiPolicy } from '../fixtures/capi.js';
import {
  childInput,
  DB_POLICY,
  FOUND,
  launcherPod,
  PG_KEY,
  PG_UID,
  pgConfigMap,
  VM_KEY,
  VM_POLICY,
  VM_UID,
} from '../fixtures/children.js';
import { fullMachine } from '../fixtures/hardening-machine.js';
import { reviewInput } from '../fixtures/input.js';
import { ETCD, machine, USERS } from '../fixtures/openshift.js';
import { deepFreeze } from '../helpers/hardening-json.js';
import { applyPatch } from '../helpers/json-patch.js';

const get = (obj: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], obj);

/** mutate on a frozen copy of input.object; the patch applied to the original must give the mutated object. */
function mutateFrozen(policy: Policy, input: ReviewInput) {
  const original = input.object as KubeObject;
  const frozen = deepFreeze(cloneJson(original));
  const m = mutate(policy, { ...input, object: frozen });
  if (m.mutated) {
    const applied = applyPatch(original, m.patch);
    assert.deepEqual(applied, m.mutated);
  }
  return { m, frozen };
}

const controlPlaneCreate = (object: KubeObject): ReviewInput =>
  reviewInput({ operation: 'CREATE', object, user: USERS.machineApi });

describe('mutation copies only what rules may change', () => {
  test("a full control-plane Machine: the hook list is new, managedFields and providerSpec are the request's own", () => {
    const { m, frozen } = mutateFrozen(DEFAULT_POLICY, controlPlaneCreate(fullMachine()));
    assert.deepEqual(m.patch, [{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] }]);
    assert.equal(get(m.mutated, 'metadata', 'managedFields'), get(frozen, 'metadata', 'managedFields'));
    assert.equal(get(m.mutated, 'spec', 'providerSpec'), get(frozen, 'spec', 'providerSpec'));
    assert.notEqual(get(m.mutated, 'spec'), get(frozen, 'spec'));
  });

  test('a wrong owner of the etcd hook is corrected in place, other hooks kept', () => {
    const other = { name: 'drain-guard', owner: 'team-a' };
    const { m } = mutateFrozen(
      DEFAULT_POLICY,
      controlPlaneCreate(machine({ preDrain: [other, { name: ETCD.name, owner: 'someone-else' }] })),
    );
    assert.deepEqual(m.patch, [{ op: 'replace', path: '/spec/lifecycleHooks/preDrain/1/owner', value: ETCD.owner }]);
  });

  test('a Machine without spec gets one', () => {
    const object = machine();
    delete object['spec'];
    const { m } = mutateFrozen(DEFAULT_POLICY, controlPlaneCreate(object));
    assert.deepEqual(m.patch, [{ op: 'add', path: '/spec', value: { lifecycleHooks: { preDrain: [ETCD] } } }]);
  });

  test('malformed hook stanzas are left alone without a write', () => {
    for (const lifecycleHooks of ['x', [], { preDrain: 'x' }]) {
      const object = machine();
      (object['spec'] as Record<string, unknown>)['lifecycleHooks'] = lifecycleHooks;
      assert.deepEqual(mutateFrozen(DEFAULT_POLICY, controlPlaneCreate(object)).m.patch, []);
    }
    const specless = machine();
    specless['spec'] = ['not', 'an', 'object'];
    assert.deepEqual(mutateFrozen(DEFAULT_POLICY, controlPlaneCreate(specless)).m.patch, [
      { op: 'replace', path: '/spec', value: { lifecycleHooks: { preDrain: [ETCD] } } },
    ]);
  });

  test('a Cluster API Machine gets its annotation; the other annotations are untouched', () => {
    const { m, frozen } = mutateFrozen(
      capiPolicy(),
      capiInput({ operation: 'CREATE', object: capiMachine(), user: CAPI_USERS.kcp }),
    );
    assert.equal(m.patch.length, 1);
    assert.equal(m.patch[0]?.op, 'add');
    assert.notEqual(get(m.mutated, 'metadata', 'annotations'), get(frozen, 'metadata', 'annotations'));
    assert.equal(get(m.mutated, 'spec'), get(frozen, 'spec'));
  });

  test('child rules append to existing ownerReferences and finalizers without touching the request', () => {
    const vm = mutateFrozen(
      VM_POLICY,
      childInput({ object: launcherPod({ finalizers: ['example.com/keep'] }), parents: { [VM_KEY]: FOUND(VM_UID) } }),
    ).m;
    assert.deepEqual(vm.patch.map((p) => `${p.op} ${p.path}`).sort(), [
      'add /metadata/finalizers/1',
      'add /metadata/ownerReferences/1',
    ]);
    const db = mutateFrozen(
      DB_POLICY,
      childInput({ kind: 'ConfigMap', object: pgConfigMap(), parents: { [PG_KEY]: FOUND(PG_UID) } }),
    ).m;
    assert.deepEqual(
      db.patch.map((p) => `${p.op} ${p.path}`),
      ['add /metadata/finalizers'],
    );
  });

  test('a worker Machine is not copied at all', () => {
    const { m } = mutateFrozen(DEFAULT_POLICY, controlPlaneCreate(machine({ role: 'worker' })));
    assert.deepEqual(m, { mutated: null, patch: [], changes: [] });
    // Copying a level means listing its keys: a spec whose keys are never listed was never copied.
    const worker = machine({ role: 'worker' });
    const listed: string[] = [];
    const watch = (name: string, value: object): object =>
      new Proxy(value, { ownKeys: (t) => (listed.push(name), Reflect.ownKeys(t)) });
    const watched = { ...worker, spec: watch('spec', worker['spec'] as object) } as KubeObject;
    assert.deepEqual(mutate(DEFAULT_POLICY, controlPlaneCreate(watch('object', watched) as KubeObject)), m);
    assert.deepEqual(listed, []);
  });
});

describe('copyForWrites', () => {
  test('shallow-copies each written path and the way there, shares the rest (the entries of written values too)', () => {
    const original = { a: { b: { c: [1] }, keep: { x: 1 } }, other: { y: [2] }, list: [{ z: 1 }] };
    const copy = copyForWrites(original, [['a', 'b'], ['a', 'missing', 'deeper'], ['list']]) as typeof original;
    assert.deepEqual(copy, original);
    assert.notEqual(copy.a, original.a);
    assert.notEqual(copy.a.b, original.a.b);
    assert.equal(copy.a.b.c, original.a.b.c);
    assert.notEqual(copy.list, original.list);
    assert.equal(copy.list[0], original.list[0]);
    assert.equal(copy.a.keep, original.a.keep);
    assert.equal(copy.other, original.other);
  });

  test('"__proto__" keys on the way stay own keys', () => {
    const original = JSON.parse(
      '{"__proto__":{"polluted":true},"metadata":{"__proto__":{"x":1},"finalizers":["a"]}}',
    ) as KubeObject;
    const copy = copyForWrites(original, [
      ['metadata', 'finalizers'],
      ['__proto__', 'polluted'],
    ]);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal(Object.getPrototypeOf(copy['metadata']), Object.prototype);
    assert.equal(JSON.stringify(copy), JSON.stringify(original));
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});
