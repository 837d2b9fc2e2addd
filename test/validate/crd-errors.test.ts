// ajv's schema errors in the API server's words, keyword by keyword, including those the test CRD does not reach.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ErrorObject } from 'ajv';
import { describeSchemaErrors } from '../../src/transports/validate/crd-errors.js';

const DATA = {
  spec: {
    hooks: [{ name: 'a' }, { name: 'b' }, { name: 'a' }],
    empty: [],
    labels: { a: '1', b: '2', c: '3' },
    none: {},
    size: 7,
    port: true,
    name: 'x'.repeat(10),
    ratio: 0.5,
    since: 'yesterday',
    tags: ['t', 'u', 't'],
  },
};

function error(keyword: string, instancePath: string, params: Record<string, unknown>, message?: string): ErrorObject {
  return { keyword, instancePath, schemaPath: `#/${keyword}`, params, ...(message === undefined ? {} : { message }) };
}

function messages(...errors: ErrorObject[]): string[] {
  return describeSchemaErrors(errors, DATA).map((f) => f.message);
}

test('counts print bare: minItems, maxItems, minProperties, maxProperties', () => {
  assert.deepEqual(
    messages(
      error('minItems', '/spec/empty', { limit: 1 }),
      error('maxItems', '/spec/hooks', { limit: 2 }),
      error('minProperties', '/spec/none', { limit: 1 }),
      error('maxProperties', '/spec/labels', { limit: 2 }),
    ),
    [
      'spec.empty: Invalid value: 0: spec.empty in body should have at least 1 items',
      'spec.hooks: Too many: 3: must have at most 2 items',
      'spec.none: Invalid value: 0: spec.none in body should have at least 1 properties',
      'spec.labels: Too many: 3: must have at most 2 items',
    ],
  );
});

test('values as field errors print them: numbers and booleans bare, strings quoted', () => {
  assert.deepEqual(
    messages(
      error('enum', '/spec/size', { allowedValues: [1, 2, 'three'] }),
      error('type', '/spec/port', { type: ['integer', 'string'] }),
      error('minimum', '/spec/ratio', { limit: 1 }),
      error('maxLength', '/spec/name', { limit: 8 }),
      error('format', '/spec/since', { format: 'date-time' }),
    ),
    [
      'spec.size: Unsupported value: 7: supported values: 1, 2, "three"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer-or-string: "boolean"',
      'spec.ratio: Invalid value: 0.5: spec.ratio in body should be greater than or equal to 1',
      'spec.name: Too long: may not be more than 8 bytes',
      'spec.since: Invalid value: "yesterday": spec.since in body must be of type date-time: "yesterday"',
    ],
  );
  const [enumFinding] = describeSchemaErrors([error('enum', '/spec/size', { allowedValues: [1, 2, 'three'] })], DATA);
  assert.equal(enumFinding?.fix, 'use one of 1, 2, "three"');
});

test('duplicates: the repeated item, and a list-map key as JSON', () => {
  assert.deepEqual(
    messages(
      error('uniqueItems', '/spec/tags', { i: 2, j: 0 }),
      error('k8sListUnique', '/spec/hooks/2', { value: { name: 'a' }, fix: 'keep one' }),
      error('required', '/spec', { missingProperty: 'owner' }),
      error('anyOf', '/spec/size', {}, 'must match a schema in anyOf'),
    ),
    [
      'spec.tags[2]: Duplicate value: "t"',
      'spec.hooks[2]: Duplicate value: {"name":"a"}',
      'spec.owner: Required value',
      'spec.size: Invalid value: 7: spec.size in body must validate at least one schema (anyOf)',
    ],
  );
});
