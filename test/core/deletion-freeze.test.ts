// Rule deletion-freeze: machine-api-operator's rule and wording for hooks on a deleting Machine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';
import { reviewInput } from '../fixtures/input.js';

const DELETING = '2026-11-21T10:00:00Z';
const PRE_DRAIN = { name: 'pre-drain', owner: 'pre-drain-owner' };
const PRE_TERMINATE = { name: 'pre-terminate', owner: 'pre-terminate-owner' };

function onDeleting(
  before: { preDrain?: HookSpec[]; preTerminate?: HookSpec[] },
  after: { preDrain?: HookSpec[]; preTerminate?: HookSpec[] },
) {
  return evaluate(
    DEFAULT_POLICY,
    reviewInput({
      operation: 'UPDATE',
      object: machine({ ...after, deletionTimestamp: DELETING, resourceVersion: '50001' }),
      oldObject: machine({ ...before, deletionTimestamp: DELETING }),
      user: USERS.machineApi,
    }),
  );
}

describe('deletion-freeze', () => {
  test('a new pre-drain hook is forbidden, in machine-api-operator words', () => {
    const d = onDeleting({}, { preDrain: [PRE_DRAIN] });
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'spec.lifecycleHooks.preDrain: Forbidden: pre-drain hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [{Name:pre-drain Owner:pre-drain-owner}]',
      ],
    );
  });

  test('both stanzas changed give both errors', () => {
    const d = onDeleting({}, { preDrain: [PRE_DRAIN], preTerminate: [PRE_TERMINATE] });
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'spec.lifecycleHooks.preDrain: Forbidden: pre-drain hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [{Name:pre-drain Owner:pre-drain-owner}]',
        'spec.lifecycleHooks.preTerminate: Forbidden: pre-terminate hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [{Name:pre-terminate Owner:pre-terminate-owner}]',
      ],
    );
  });

  test('a changed owner counts as changed; several hooks are listed as Go prints them', () => {
    const d = onDeleting(
      { preTerminate: [PRE_TERMINATE] },
      {
        preTerminate: [
          { name: 'pre-terminate', owner: 'other-owner' },
          { name: 'second', owner: 'owner-2' },
        ],
      },
    );
    assert.match(
      d.denials[0]?.message ?? '',
      /new or changed: \[\{Name:pre-terminate Owner:other-owner\} \{Name:second Owner:owner-2\}\]$/,
    );
  });

  test('removing or reordering hooks is not a change', () => {
    assert.equal(
      onDeleting(
        { preDrain: [PRE_DRAIN, { name: 'other', owner: 'o-1' }] },
        { preDrain: [{ name: 'other', owner: 'o-1' }] },
      ).allowed,
      true,
    );
    assert.equal(
      onDeleting(
        { preDrain: [PRE_DRAIN, { name: 'other', owner: 'o-1' }] },
        { preDrain: [{ name: 'other', owner: 'o-1' }, PRE_DRAIN] },
      ).allowed,
      true,
    );
  });

  test('a Machine not being deleted may gain hooks', () => {
    const d = evaluate(
      DEFAULT_POLICY,
      reviewInput({ operation: 'UPDATE', object: machine({ preDrain: [PRE_DRAIN] }), oldObject: machine({}) }),
    );
    assert.equal(d.allowed, true);
  });

  test('removing all finalizers of a deleting Machine skips every rule but controller-finalizer, whatever its hooks', () => {
    const old = machine({ preDrain: [ETCD], deletionTimestamp: DELETING });
    const next = machine({ preDrain: [ETCD], deletionTimestamp: DELETING, finalizers: [], resourceVersion: '50002' });
    const as = (user: (typeof USERS)[keyof typeof USERS]) =>
      evaluate(DEFAULT_POLICY, reviewInput({ operation: 'UPDATE', object: next, oldObject: old, user }));
    const controller = as(USERS.machineApi);
    assert.deepEqual([controller.allowed, controller.denials.length, controller.warnings.length], [true, 0, 0]);
    assert.deepEqual(
      as(USERS.alice).denials.map((v) => v.rule),
      ['controller-finalizer'],
    );
  });

  test('removing finalizers together with the etcd hook is still judged', () => {
    const old = machine({ preDrain: [ETCD], deletionTimestamp: DELETING });
    const next = machine({ preDrain: [], deletionTimestamp: DELETING, finalizers: [] });
    const d = evaluate(
      DEFAULT_POLICY,
      reviewInput({ operation: 'UPDATE', object: next, oldObject: old, user: USERS.alice }),
    );
    assert.deepEqual(
      d.denials.map((v) => v.rule),
      ['owner-only-removal'],
    );
  });
});
