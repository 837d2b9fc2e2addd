// The CEL text building blocks: literals that survive any policy string, JSON pointers, presence tests.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { annotationHookName } from '../../src/core/cel/carrier.js';
import {
  cel,
  celIdentifier,
  celString,
  celStringMap,
  celStringSet,
  hasPath,
  OBJECT,
  pointer,
  select,
} from '../../src/core/cel/text.js';

describe('CEL text', () => {
  test('string literals escape quotes, backslashes and control characters as CEL reads them', () => {
    assert.equal(celString('team/a'), '"team/a"');
    assert.equal(celString('say "hi"\\n'), '"say \\"hi\\"\\\\n"');
    assert.equal(celString('line\nbreak'), '"line\\nbreak"');
  });

  test('a set literal keeps each value once; a map literal keeps the first value of a repeated key', () => {
    assert.equal(celStringSet(['a', 'b', 'a']), '{"a": true, "b": true}');
    assert.equal(celStringSet([]), '{}');
    assert.equal(
      celStringMap([
        ['x', '1'],
        ['y', '2'],
        ['x', '3'],
      ]),
      '{"x": "1", "y": "2"}',
    );
  });

  test('a JSON pointer escapes "~" and "/" in keys (annotation keys carry "/")', () => {
    assert.equal(
      pointer(['metadata', 'annotations', 'pre-drain.delete.hook.machine.cluster.x-k8s.io/A~B']),
      '/metadata/annotations/pre-drain.delete.hook.machine.cluster.x-k8s.io~1A~0B',
    );
  });

  test('a presence test is one parenthesized term, so negating it negates every step', () => {
    const text = hasPath(OBJECT, ['spec', 'lifecycleHooks']);
    assert.equal(text, '(has(object.spec) && has(object.spec.lifecycleHooks))');
    assert.equal(`!${text}`, '!(has(object.spec) && has(object.spec.lifecycleHooks))');
    assert.equal(select(OBJECT, ['spec', 'lifecycleHooks']), 'object.spec.lifecycleHooks');
  });

  test('an identifier is checked, so a key never brings CEL source with it; a number in cel`` must be an int', () => {
    assert.equal(celIdentifier('preDrain'), 'preDrain');
    assert.throws(() => celIdentifier('a) || true || (b'), /not a CEL identifier/);
    assert.throws(() => select(OBJECT, ['spec', 'x.y']), /not a CEL identifier/);
    assert.throws(() => cel`size(x) > ${1.5}`, /not a CEL int literal/);
    assert.equal(cel`size(x) > ${3}`, 'size(x) > 3');
  });

  test("a Cluster API hook's name: the part after '<prefix>/', or the whole key that only starts with the prefix", () => {
    assert.equal(
      annotationHookName('preDrain', cel`k`),
      '(k.startsWith("pre-drain.delete.hook.machine.cluster.x-k8s.io/") ? k.substring(47) : k)',
    );
  });
});
