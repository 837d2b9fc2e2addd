// The CEL text building blocks: literals that survive any policy string, JSON pointers, presence tests.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { annotationHookName } from '../../src/core/cel/carrier.js';
import { hasPath, pointer, select, str, stringMap, stringSet } from '../../src/core/cel/text.js';

describe('CEL text', () => {
  test('string literals escape quotes, backslashes and control characters as CEL reads them', () => {
    assert.equal(str('team/a'), '"team/a"');
    assert.equal(str('say "hi"\\n'), '"say \\"hi\\"\\\\n"');
    assert.equal(str('line\nbreak'), '"line\\nbreak"');
  });

  test('a set literal keeps each value once; a map literal keeps the first value of a repeated key', () => {
    assert.equal(stringSet(['a', 'b', 'a']), '{"a": true, "b": true}');
    assert.equal(stringSet([]), '{}');
    assert.equal(
      stringMap([
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
    const text = hasPath('object', ['spec', 'lifecycleHooks']);
    assert.equal(text, '(has(object.spec) && has(object.spec.lifecycleHooks))');
    assert.equal(`!${text}`, '!(has(object.spec) && has(object.spec.lifecycleHooks))');
    assert.equal(select('object', ['spec', 'lifecycleHooks']), 'object.spec.lifecycleHooks');
  });

  test("a Cluster API hook's name: the part after '<prefix>/', or the whole key that only starts with the prefix", () => {
    assert.equal(
      annotationHookName('preDrain', 'k'),
      '(k.startsWith("pre-drain.delete.hook.machine.cluster.x-k8s.io/") ? k.substring(47) : k)',
    );
  });
});
