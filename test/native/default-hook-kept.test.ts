// default-hook-kept in native mode: the validating policies alone (as after a later mutation that stripped the hook
// hookkeeper's MutatingAdmissionPolicy added) refuse what the webhook's /validate refuses, in the same words; the
// whole chain (hookkeeper's mutation, then validation) lets the same request through.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import type { KubeObject, ReviewInput } from '../../src/core/types.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { ETCD, machine, USERS } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';
import { admit, compilePolicies } from './evaluator/admission.js';

const { objects } = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: 'v1.37.2' });
const validatingOnly = compilePolicies(objects.filter((o) => !String(o['kind']).startsWith('Mutating')));
const everything = compilePolicies(objects);
const cluster = { authorize: () => false };

const create = (obj: KubeObject) => reviewInput({ operation: 'CREATE', object: obj, user: USERS.machineApi });
const update = (obj: KubeObject, oldObject: KubeObject) =>
  reviewInput({ operation: 'UPDATE', object: obj, oldObject, user: USERS.machineApi });

/** The webhook's /validate on the same (already mutated) request: its denials of this rule. */
const webhook = (input: ReviewInput) =>
  evaluate(DEFAULT_POLICY, input)
    .denials.filter((v) => v.rule === 'default-hook-kept')
    .map((v) => v.message);

describe('default-hook-kept, native', () => {
  test('a control-plane CREATE without the hook at validation is refused by its policy, in the webhook’s words', () => {
    const input = create(machine({ role: 'master' }));
    const verdict = admit(validatingOnly, input, cluster);
    assert.equal(verdict.allowed, false);
    assert.equal(verdict.denial?.policy, 'hookkeeper-openshift-machine-default-hook-kept');
    assert.deepEqual([verdict.denial?.message], webhook(input));
    // Through hookkeeper's own mutation first, as the API server runs it: the hook is added, nothing refused.
    const chain = admit(everything, input, cluster);
    assert.equal(chain.allowed, true, chain.denial?.message);
  });

  test('the relabel to control-plane without the hook is refused; with it, or a worker, or an old control-plane Machine, passes', () => {
    const relabel = update(machine({ role: 'master' }), machine({ role: 'worker' }));
    const verdict = admit(validatingOnly, relabel, cluster);
    assert.deepEqual([verdict.allowed, verdict.denial?.message], [false, ...webhook(relabel)]);
    const cases = [
      update(machine({ role: 'master', preDrain: [ETCD] }), machine({ role: 'worker' })),
      create(machine({ role: 'worker' })),
      create(machine({ role: 'arbiter', preDrain: [ETCD] })),
      update(machine({ role: 'master' }), machine({ role: 'master' })),
    ];
    for (const input of cases) {
      assert.deepEqual(webhook(input), []);
      const v = admit(validatingOnly, input, cluster);
      assert.equal(v.allowed, true, v.denial?.message);
    }
  });
});
