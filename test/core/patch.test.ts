// diff(): the JSON Patch the mutating webhook sends. Its exact operations and their order are the wire format (the
// patches fast-json-patch's compare made before diff replaced it: checked on 200,000 generated pairs then), and applied
// by the RFC to the original it gives the mutated object.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { diff } from '../../src/core/patch.js';
import type { KubeObject } from '../../src/core/types.js';
import { applyPatch } from '../helpers/json-patch.js';

describe('diff', () => {
  test('per object: stored keys from last to first (nested first), then the keys it gained; pointers escaped', () => {
    const original: KubeObject = {
      a: 1,
      list: [1, 2, 3],
      meta: { 'x/y': 'old', 'm~n': 'keep', gone: true },
      z: { deep: { v: 1 } },
    };
    const mutated: KubeObject = {
      a: 1,
      list: [1, 9],
      meta: { 'x/y': 'new', 'm~n': 'keep', added: [undefined] },
      z: { deep: { v: 2 } },
      tail: 't',
    };
    assert.deepEqual(diff(original, mutated), [
      { op: 'replace', path: '/z/deep/v', value: 2 },
      { op: 'remove', path: '/meta/gone' },
      { op: 'replace', path: '/meta/x~1y', value: 'new' },
      { op: 'add', path: '/meta/added', value: [null] },
      { op: 'remove', path: '/list/2' },
      { op: 'replace', path: '/list/1', value: 9 },
      { op: 'add', path: '/tail', value: 't' },
    ]);
  });

  test('a key set to undefined is removed; a list entry set to undefined becomes null; a type change replaces', () => {
    assert.deepEqual(diff({ a: 1, b: [1], c: { d: 1 } }, { a: undefined, b: [undefined], c: [1] }), [
      { op: 'replace', path: '/c', value: [1] },
      { op: 'replace', path: '/b/0', value: null },
      { op: 'remove', path: '/a' },
    ]);
  });

  test('shared subtrees are not walked, and nothing changed is no operation', () => {
    const shared = { deep: [1, 2] };
    assert.deepEqual(diff({ s: shared, n: 1 }, { s: shared, n: 1 }), []);
  });

  test('its values are copies: changing the mutated object later does not change the patch', () => {
    const value = { k: ['v'] };
    const patch = diff({}, { value });
    value.k.push('w');
    assert.deepEqual(patch, [{ op: 'add', path: '/value', value: { k: ['v'] } }]);
  });

  test('applied by RFC 6902 to the original, it gives the mutated object', () => {
    const key = fc.constantFrom('a', 'b', 'x/y', 'm~n', '__proto__', '0', 'spec');
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        fc.string({ maxLength: 3 }),
        tie('list'),
        tie('map'),
      ),
      list: fc.array(tie('value'), { maxLength: 4 }),
      map: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    }));
    const object = fc.dictionary(key, value, { maxKeys: 5 }).map((o) => JSON.parse(JSON.stringify(o)) as KubeObject);
    fc.assert(
      fc.property(object, object, (a, b) => {
        assert.deepEqual(applyPatch(a, diff(a, b)), b);
      }),
      { numRuns: 2000 },
    );
  });
});
