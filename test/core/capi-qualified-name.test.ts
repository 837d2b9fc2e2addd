// Qualified names (annotation keys) as apimachinery validates and words them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { annotationKeyErrors, qualifiedNameErrors } from '../../src/core/qualified-name.js';

const REGEX = "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'";
const NAME_SHAPE = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is ${REGEX})`;
const TWO_SLASHES = `a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is ${REGEX}) with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
const PREFIX_SHAPE =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('qualifiedNameErrors', () => {
  // The valid and invalid values of apimachinery's TestIsQualifiedName.
  const valid = [
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    '1234',
    'simple/simple',
    'now-with-dashes/simple',
    'now-with-dashes/now-with-dashes',
    'now.with.dots/now-with-dashes',
    'now-with.dots/now-with-dashes',
    'now.with.dots/now.with.dots',
    'now-with.dots/now.with.dots',
    'UpperCase123',
    'upper-case-123',
    'a.b/' + 'c'.repeat(63),
    'a'.repeat(253) + '/abc',
  ];
  for (const value of valid)
    test(`valid: ${value.slice(0, 40)}`, () => assert.deepEqual(qualifiedNameErrors(value), []));

  const invalid: Array<[string, string[]]> = [
    ['nospecialchars%^=@', [NAME_SHAPE]],
    ['cantendwithadash-', [NAME_SHAPE]],
    ['-cantstartwithadash-', [NAME_SHAPE]],
    ['only/one/slash', [TWO_SLASHES]],
    ['Example.com/abc', [PREFIX_SHAPE]],
    ['example_com/abc', [PREFIX_SHAPE]],
    ['example.com/', ['name part must be non-empty', NAME_SHAPE]],
    ['/simple', ['prefix part must be non-empty']],
    ['a'.repeat(64), ['name part must be no more than 63 bytes']],
    ['a'.repeat(254) + '/abc', ['prefix part must be no more than 253 bytes']],
  ];
  for (const [value, expected] of invalid) {
    test(`invalid: ${value.slice(0, 40)}`, () => assert.deepEqual(qualifiedNameErrors(value), expected));
  }

  test('lengths are UTF-8 bytes, as Go counts them', () => {
    assert.deepEqual(qualifiedNameErrors(`${'a'.repeat(61)}é`), [NAME_SHAPE]);
    assert.deepEqual(qualifiedNameErrors(`${'a'.repeat(62)}é`), [
      'name part must be no more than 63 bytes',
      NAME_SHAPE,
    ]);
    // Short enough that no encoding could pass the limit, and a surrogate pair (two UTF-16 units, four bytes).
    assert.deepEqual(qualifiedNameErrors(`a${'é'.repeat(19)}a`), [NAME_SHAPE]);
    assert.deepEqual(qualifiedNameErrors(`a${'😀'.repeat(15)}a`), [NAME_SHAPE]);
    assert.deepEqual(qualifiedNameErrors(`a${'😀'.repeat(16)}`), [
      'name part must be no more than 63 bytes',
      NAME_SHAPE,
    ]);
  });

  test('annotation keys are checked lowercased, as ValidateAnnotations does', () => {
    assert.deepEqual(annotationKeyErrors('Example.com/abc'), []);
    assert.deepEqual(annotationKeyErrors('Example.com/a/b'), [TWO_SLASHES]);
  });
});
