// Rule owner-references: one controller reference at most, in the API server's words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { machine } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';

const ref = (name: string, controller: boolean) => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'MachineSet',
  name,
  uid: `uid-${name}`,
  controller,
  blockOwnerDeletion: true,
});

test('one controller reference is fine', () => {
  const d = evaluate(
    DEFAULT_POLICY,
    reviewInput({
      operation: 'CREATE',
      object: machine({ role: 'worker', ownerReferences: [ref('a', true), ref('b', false)] }),
    }),
  );
  assert.equal(d.allowed, true);
});

test('two controller references are denied as the API server would', () => {
  const d = evaluate(
    DEFAULT_POLICY,
    reviewInput({
      operation: 'CREATE',
      object: machine({ role: 'worker', ownerReferences: [ref('a', true), ref('b', true), ref('c', true)] }),
    }),
  );
  assert.deepEqual(
    d.denials.map((v) => v.message),
    [
      'metadata.ownerReferences: Invalid value: Only one reference can have Controller set to true. Found "true" in references for MachineSet/a and MachineSet/b',
      'metadata.ownerReferences: Invalid value: Only one reference can have Controller set to true. Found "true" in references for MachineSet/a and MachineSet/c',
    ],
  );
});
