// cloneJson, the copy mutating rules change: a faithful deep copy of JSON, including keys JSON.parse makes own
// properties that plain assignment would turn into a prototype ("__proto__"), and as deep as the diff can go.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mutate } from '../../src/core/engine.js';
import { cloneJson, diff } from '../../src/core/patch.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { createMasterReview } from '../fixtures/hardening-machine.js';
import { reviewInput } from '../fixtures/input.js';
import { machine, USERS } from '../fixtures/openshift.js';
import { nested } from '../helpers/hardening-json.js';

describe('cloneJson', () => {
  test('a deep, independent copy of a full Machine', () => {
    const original = (createMasterReview()['request'] as { object: Record<string, unknown> }).object;
    const copy = cloneJson(original);
    assert.deepEqual(copy, original);
    assert.notEqual(copy, original);
    assert.notEqual(copy['metadata'], original['metadata']);
    ((copy['metadata'] as Record<string, unknown>)['labels'] as Record<string, string>)['x'] = 'y';
    assert.equal(
      ((original['metadata'] as Record<string, unknown>)['labels'] as Record<string, string>)['x'],
      undefined,
    );
  });

  test('"__proto__" stays an own key and never becomes the prototype', () => {
    const original = JSON.parse('{"__proto__":{"polluted":true},"a":{"__proto__":[1]}}') as Record<string, unknown>;
    const copy = cloneJson(original);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.ok(Object.hasOwn(copy, '__proto__'));
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    assert.equal(JSON.stringify(copy), JSON.stringify(original));
    assert.deepEqual(diff(original, copy), []);
  });

  test('values JSON cannot hold are shared, not flattened', () => {
    const when = new Date(0);
    const copy = cloneJson({ when, list: [when] });
    assert.equal(copy.when, when);
    assert.equal(copy.list[0], when);
  });

  test('nesting 3,000 levels deep is copied (structuredClone gives up on objects at about 1,900)', () => {
    const depth = (value: unknown): number => {
      let n = 0;
      for (
        let v = value;
        typeof v === 'object' && v !== null;
        v = Array.isArray(v) ? v[0] : (v as Record<string, unknown>)['a']
      )
        n++;
      return n;
    };
    for (const kind of ['array', 'object'] as const) {
      const value = nested(3_000, kind);
      const copy = cloneJson(value);
      assert.notEqual(copy, value);
      assert.equal(depth(copy), 3_000);
    }
  });

  test('mutate on an object with own "__proto__" keys patches only what the rule added', () => {
    const object = JSON.parse(
      JSON.stringify(machine({ role: 'master' })).replace('"spec":{', '"spec":{"__proto__":{"x":1},'),
    ) as Record<string, unknown>;
    const input = reviewInput({ operation: 'CREATE', object, user: USERS.machineApi });
    assert.deepEqual(mutate(DEFAULT_POLICY, input).patch, [
      {
        op: 'add',
        path: '/spec/lifecycleHooks/preDrain',
        value: [{ name: 'EtcdQuorumOperator', owner: 'clusteroperator/etcd' }],
      },
    ]);
  });
});
