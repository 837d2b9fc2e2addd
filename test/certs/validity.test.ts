// Certificate validity periods: both ends inclusive, and each problem says which end and when.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validityProblem } from '../../src/infrastructure/certs/validity.js';

const from = new Date('2030-01-01T00:00:00Z');
const until = new Date('2030-04-01T00:00:00Z');

test('a certificate is usable from its notBefore to its notAfter, both included', () => {
  assert.equal(validityProblem(from, until, from), undefined);
  assert.equal(validityProblem(from, until, until), undefined);
  assert.equal(validityProblem(from, until, new Date('2030-02-01T00:00:00Z')), undefined);
});

test('after notAfter it has expired; before notBefore it is not valid yet', () => {
  assert.deepEqual(validityProblem(from, until, new Date(until.getTime() + 1000)), {
    kind: 'expired',
    message: 'has expired: valid until 2030-04-01T00:00:00.000Z, now 2030-04-01T00:00:01.000Z',
  });
  assert.deepEqual(validityProblem(from, until, new Date(from.getTime() - 1000)), {
    kind: 'not-yet-valid',
    message: 'is not valid yet: valid from 2030-01-01T00:00:00.000Z, now 2029-12-31T23:59:59.000Z',
  });
});
