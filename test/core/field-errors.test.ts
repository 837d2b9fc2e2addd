// Field errors: each constructor against literal messages in the API server's format and hookkeeper's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  duplicate,
  forbidden,
  formatValue,
  internalError,
  invalid,
  newPath,
  notFound,
  notSupported,
  OMIT_VALUE,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from '../../src/core/field-errors.js';
import { MAX_QUOTED_DEPTH } from '../../src/core/guards.js';

test('paths print as apimachinery prints field.Path: children after dots, indexes and keys in brackets', () => {
  assert.equal(
    String(newPath('spec').child('lifecycleHooks').child('preDrain').index(1).child('name')),
    'spec.lifecycleHooks.preDrain[1].name',
  );
  assert.equal(String(newPath('spec', 'lifecycleHooks', 'preDrain').index(0)), 'spec.lifecycleHooks.preDrain[0]');
  assert.equal(
    String(newPath('metadata').child('annotations').key('pre-drain.delete.hook.machine.cluster.x-k8s.io/x')),
    'metadata.annotations[pre-drain.delete.hook.machine.cluster.x-k8s.io/x]',
  );
  assert.equal(String(newPath('metadata', 'ownerReferences').index(2).child('uid')), 'metadata.ownerReferences[2].uid');
  assert.equal(String(newPath('items').index(0).index(3)), 'items[0][3]');
  const base = newPath('spec');
  base.child('a');
  assert.equal(String(base), 'spec', 'a path is a value: a child does not change its parent');
});

test('Required value: no value printed, the detail only when given', () => {
  assert.equal(required('spec.template.kind').message, 'spec.template.kind: Required value');
  assert.equal(
    required(newPath('metadata', 'name'), 'name or generateName is required').message,
    'metadata.name: Required value: name or generateName is required',
  );
  const e = required('metadata.finalizers', 'Machine "m" lacks finalizer "x"');
  assert.deepEqual(
    { ...e },
    {
      type: 'Required value',
      field: 'metadata.finalizers',
      body: 'Required value: Machine "m" lacks finalizer "x"',
      message: 'metadata.finalizers: Required value: Machine "m" lacks finalizer "x"',
    },
  );
});

test('Invalid value: strings quoted, numbers and booleans bare, null as null, lists and maps as JSON', () => {
  assert.equal(
    invalid(
      'spec.lifecycleHooks.preDrain[0].name',
      'ab',
      'spec.lifecycleHooks.preDrain[0].name in body should be at least 3 chars long',
    ).message,
    'spec.lifecycleHooks.preDrain[0].name: Invalid value: "ab": spec.lifecycleHooks.preDrain[0].name in body should be at least 3 chars long',
  );
  assert.equal(
    invalid(newPath('spec', 'replicas'), -1, 'must be greater than or equal to 0').message,
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
  );
  assert.equal(
    invalid('spec.ratio', 0.5, 'should be less than or equal to 0.25').message,
    'spec.ratio: Invalid value: 0.5: should be less than or equal to 0.25',
  );
  assert.equal(
    invalid('spec.paused', true, 'must be false').message,
    'spec.paused: Invalid value: true: must be false',
  );
  assert.equal(invalid('spec.owner', null, 'x').message, 'spec.owner: Invalid value: null: x');
  assert.equal(invalid('spec.owner', undefined, 'x').message, 'spec.owner: Invalid value: null: x');
  assert.equal(invalid('spec.tags', ['a', 1], 'x').message, 'spec.tags: Invalid value: ["a",1]: x');
  assert.equal(invalid('spec.code', 'ABC\n', 'y').message, 'spec.code: Invalid value: "ABC\\n": y');
  assert.equal(invalid('spec.x', 'v', '').message, 'spec.x: Invalid value: "v"', 'no detail, no trailing colon');
});

test('Invalid value with OMIT_VALUE prints the detail right after the type', () => {
  assert.equal(
    invalid(
      'metadata.ownerReferences',
      OMIT_VALUE,
      'Only one reference can have Controller set to true. Found "true" in references for MachineSet/a and MachineSet/b',
    ).message,
    'metadata.ownerReferences: Invalid value: Only one reference can have Controller set to true. Found "true" in references for MachineSet/a and MachineSet/b',
  );
});

test('a value nested too deep to print is named, not printed', () => {
  let deep: unknown = 1;
  for (let i = 0; i <= MAX_QUOTED_DEPTH; i++) deep = [deep];
  assert.equal(
    invalid('spec.x', deep, 'bad').message,
    `spec.x: Invalid value: (array nested more than ${MAX_QUOTED_DEPTH} levels): bad`,
  );
  assert.equal(formatValue({ a: 'b' }), '{"a":"b"}');
});

test('type errors as apiextensions-apiserver words them: the JSON type, quoted, twice', () => {
  assert.equal(
    typeInvalid('spec.lifecycleHooks.preDrain[0].name', 5, 'string').message,
    'spec.lifecycleHooks.preDrain[0].name: Invalid value: "integer": spec.lifecycleHooks.preDrain[0].name in body must be of type string: "integer"',
  );
  assert.equal(
    typeInvalid('spec.lifecycleHooks', ['x'], 'object').message,
    'spec.lifecycleHooks: Invalid value: "array": spec.lifecycleHooks in body must be of type object: "array"',
  );
  assert.equal(
    typeInvalid('spec.n', 1.5, 'integer').message,
    'spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"',
  );
  assert.equal(
    typeInvalid('spec.o', null, 'string').message,
    'spec.o: Invalid value: "null": spec.o in body must be of type string: "null"',
  );
});

test('Forbidden: the detail, never a value', () => {
  assert.equal(
    forbidden(
      'spec.lifecycleHooks.preDrain',
      'pre-drain hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [{Name:a Owner:b}]',
    ).message,
    'spec.lifecycleHooks.preDrain: Forbidden: pre-drain hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [{Name:a Owner:b}]',
  );
  assert.equal(
    forbidden('metadata.finalizers', '"bob" may not remove finalizer "x"').body,
    'Forbidden: "bob" may not remove finalizer "x"',
  );
});

test('Duplicate value: the value, no detail', () => {
  assert.equal(
    duplicate(newPath('spec', 'containers').index(1).child('name'), 'web').message,
    'spec.containers[1].name: Duplicate value: "web"',
  );
  assert.equal(
    duplicate('spec.lifecycleHooks.preDrain[1]', { name: 'example.com/Gate' }).message,
    'spec.lifecycleHooks.preDrain[1]: Duplicate value: {"name":"example.com/Gate"}',
  );
  assert.equal(duplicate('spec.ports[1]', 80).message, 'spec.ports[1]: Duplicate value: 80');
});

test("Not found: the value, and hookkeeper's reason when it gives one", () => {
  assert.equal(
    notFound('spec.volumes[0].secret', 'db-password').message,
    'spec.volumes[0].secret: Not found: "db-password"',
  );
  assert.equal(
    notFound('metadata.labels[cluster]', OMIT_VALUE, 'parent PostgresCluster "db" in namespace "a" does not exist')
      .message,
    'metadata.labels[cluster]: Not found: parent PostgresCluster "db" in namespace "a" does not exist',
  );
});

test('Unsupported value: the supported values listed, strings quoted', () => {
  assert.equal(
    notSupported('spec.restartPolicy', 'Sometimes', ['Always', 'OnFailure', 'Never']).message,
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
  );
  assert.equal(
    notSupported('spec.size', 7, [1, 2, 'x']).message,
    'spec.size: Unsupported value: 7: supported values: 1, 2, "x"',
  );
  assert.equal(notSupported('spec.size', 'x', []).message, 'spec.size: Unsupported value: "x"');
});

test('Too long: the limit in bytes, never the value', () => {
  assert.equal(
    tooLong('spec.lifecycleHooks.preDrain[0].name', 'x'.repeat(300), 256).message,
    'spec.lifecycleHooks.preDrain[0].name: Too long: may not be more than 256 bytes',
  );
  assert.equal(
    tooLong(newPath('metadata', 'annotations'), '', 262144).message,
    'metadata.annotations: Too long: may not be more than 262144 bytes',
  );
  assert.equal(tooLong('spec.x', 'y', -1).message, 'spec.x: Too long: value is too long');
});

test('Too many: the count, then the limit', () => {
  assert.equal(tooMany('spec.hooks', 4, 3).message, 'spec.hooks: Too many: 4: must have at most 3 items');
  assert.equal(tooMany('spec.hooks', -1, 3).message, 'spec.hooks: Too many: must have at most 3 items');
  assert.equal(tooMany('spec.hooks', 4, -1).message, 'spec.hooks: Too many: 4: has too many items');
});

test('Internal error: the cause, never a value', () => {
  assert.equal(
    internalError('metadata.labels[cluster]', 'lookup failed for parent PostgresCluster "db": connect ECONNREFUSED')
      .message,
    'metadata.labels[cluster]: Internal error: lookup failed for parent PostgresCluster "db": connect ECONNREFUSED',
  );
});
