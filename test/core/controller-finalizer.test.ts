// Rule controller-finalizer: while a Machine carries a hook, only its controller removes its controller finalizer or
// a deleting Machine's last finalizer; break-glass may, warned and audited; a hook-less Machine is nobody's business.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { validatingUpdateCondition } from '../../src/core/cel/webhook-conditions.js';
import { evaluate } from '../../src/core/engine.js';
import { explainMachine } from '../../src/core/explain/explain.js';
import type { Policy } from '../../src/core/policy.js';
import type { ReviewInput } from '../../src/core/types.js';
import { changesWhatRulesRead } from '../../src/core/update-reads.js';
import { NOT_FINISHING_DELETION } from '../../src/compilers/native/match.js';
import { capiInput, capiMachine, CAPI_USERS, PRE_TERMINATE } from '../fixtures/capi.js';
import { reviewInput } from '../fixtures/input.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';
import { conditionHolds } from '../native/evaluator/admission.js';
import { CAPI_CONTROLLERS, held, MAPI_CONTROLLER } from '../fixtures/controller-finalizer.js';

const DELETING = '2026-11-21T10:00:00Z';
const MAPI = 'machine.machine.openshift.io';
const CAPI = 'machine.cluster.x-k8s.io';
type User = { username: string; uid?: string; groups: readonly string[] };

interface Case {
  hooks?: HookSpec[];
  deleting?: boolean;
  before: string[];
  after: string[];
  user: User;
}

function openshift(c: Case): ReviewInput {
  const o = { preTerminate: c.hooks, ...(c.deleting ? { deletionTimestamp: DELETING } : {}) };
  return reviewInput({
    operation: 'UPDATE',
    oldObject: machine({ ...o, finalizers: c.before }),
    object: machine({ ...o, finalizers: c.after, resourceVersion: '50001' }),
    user: c.user,
  });
}

function capi(c: Omit<Case, 'hooks'> & { hooks: boolean }): ReviewInput {
  const o = {
    role: 'worker' as const,
    ...(c.hooks ? { annotations: { [`${PRE_TERMINATE}/drain-db`]: 'team/db' } } : {}),
    ...(c.deleting ? { deletionTimestamp: DELETING } : {}),
  };
  return capiInput({
    operation: 'UPDATE',
    oldObject: capiMachine({ ...o, finalizers: c.before }),
    object: capiMachine({ ...o, finalizers: c.after, resourceVersion: '190009' }),
    user: c.user,
  });
}

/** The webhook's answer as the API server asks it: its matchConditions first, then the review. */
function webhook(input: ReviewInput, policy: Policy = DEFAULT_POLICY) {
  const sent =
    conditionHolds(NOT_FINISHING_DELETION.expression, input) &&
    conditionHolds(validatingUpdateCondition(policy).expression, input);
  const { decision } = handle('validate', policy, input);
  return { sent, decision, reads: changesWhatRulesRead(policy, input) };
}

const denials = (input: ReviewInput, policy?: Policy): string[] =>
  webhook(input, policy).decision.denials.map((v) => v.message);

describe('controller-finalizer', () => {
  test("a Machine editor emptying a deleting Machine's finalizers while it carries a hook is refused, and sent", () => {
    const input = openshift({ hooks: [ETCD], deleting: true, before: [MAPI], after: [], user: USERS.alice });
    const { sent, decision, reads } = webhook(input);
    assert.deepEqual([sent, reads], [true, true]);
    assert.deepEqual(
      decision.denials.map((v) => [v.rule, v.path, v.message]),
      [['controller-finalizer', 'metadata.finalizers', held('alice', MAPI, MAPI_CONTROLLER)]],
    );
  });

  test("the controller's own removal is allowed and never sent (a webhook outage cannot stop it)", () => {
    const input = openshift({ hooks: [ETCD], deleting: true, before: [MAPI], after: [], user: USERS.machineApi });
    const { sent, decision, reads } = webhook(input);
    assert.deepEqual(
      [sent, reads, decision.allowed, decision.warnings, decision.notices],
      [false, false, true, [], []],
    );
  });

  test('break-glass is allowed, with a warning and an audit annotation', () => {
    const input = openshift({ hooks: [ETCD], deleting: true, before: [MAPI], after: [], user: USERS.admin });
    const { sent, decision } = webhook(input);
    assert.equal(sent, true);
    assert.equal(decision.allowed, true);
    assert.deepEqual(
      decision.notices.map((n) => [n.warning, n.audit.key]),
      [
        [
          'break-glass: kube:admin may remove the finalizers of a machine carrying lifecycle hooks; audited',
          'break-glass-finalizer-removal',
        ],
      ],
    );
    assert.deepEqual(JSON.parse(decision.notices[0]?.audit.value ?? ''), {
      user: 'kube:admin',
      deleting: true,
      finalizers: [],
    });
    // Counted as break-glass past the etcd hook's hold (hookkeeper_break_glass_total).
    assert.deepEqual(decision.notices[0]?.breakGlass, { action: 'finalizer-removal', owners: [ETCD.owner] });
  });

  test("a hook-less deleting Machine's last finalizer goes for anyone, unsent", () => {
    const input = openshift({ deleting: true, before: [MAPI], after: [], user: USERS.alice });
    const { sent, decision } = webhook(input);
    assert.deepEqual([sent, decision.allowed], [false, true]);
  });

  test("a live Machine carrying a hook loses its controller's finalizer only to the controller", () => {
    const removal = { hooks: [ETCD], before: [MAPI, 'example.com/other'], after: ['example.com/other'] };
    assert.deepEqual(denials(openshift({ ...removal, user: USERS.alice })), [held('alice', MAPI, MAPI_CONTROLLER)]);
    assert.deepEqual(webhook(openshift({ ...removal, user: USERS.machineApi })).sent, false);
    assert.deepEqual(denials(openshift({ ...removal, user: USERS.machineApi })), []);
  });

  test('other finalizer changes are not its business', () => {
    for (const c of [
      // Another finalizer removed, the controller's kept, deleting or not.
      { hooks: [ETCD], deleting: true, before: [MAPI, 'example.com/other'], after: [MAPI] },
      { hooks: [ETCD], before: [MAPI, 'example.com/other'], after: [MAPI] },
      // A finalizer added.
      { hooks: [ETCD], before: [], after: [MAPI] },
      // A live hook-less Machine losing the controller's finalizer.
      { before: [MAPI], after: [] },
    ]) {
      const { sent, decision } = webhook(openshift({ ...c, user: USERS.alice }));
      assert.deepEqual([sent, decision.allowed], [false, true], JSON.stringify(c));
    }
  });

  test("emptying a deleting Machine's finalizers is held even when the controller's is already gone", () => {
    const input = openshift({
      hooks: [ETCD],
      deleting: true,
      before: ['example.com/other'],
      after: [],
      user: USERS.alice,
    });
    assert.deepEqual(denials(input), [held('alice', MAPI, MAPI_CONTROLLER)]);
  });

  test('Cluster API: the same, with its finalizer and manager', () => {
    const finish = { hooks: true, deleting: true, before: [CAPI], after: [] };
    assert.deepEqual(denials(capi({ ...finish, user: CAPI_USERS.alice })), [held('alice', CAPI, CAPI_CONTROLLERS)]);
    const own = webhook(capi({ ...finish, user: CAPI_USERS.capi }));
    assert.deepEqual([own.sent, own.decision.allowed], [false, true]);
    const hookless = webhook(capi({ ...finish, hooks: false, user: CAPI_USERS.alice }));
    assert.deepEqual([hookless.sent, hookless.decision.allowed], [false, true]);
  });

  test('machineControllers: a group left out keeps its default; [] leaves only break-glass', () => {
    const policy = parsePolicy(
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nmachineControllers:\n  cluster.x-k8s.io: []\n',
      'policy.yaml',
    );
    assert.deepEqual(
      policy.machineControllers['machine.openshift.io'],
      DEFAULT_POLICY.machineControllers['machine.openshift.io'],
    );
    const finish = { hooks: true, deleting: true, before: [CAPI], after: [] };
    assert.deepEqual(denials(capi({ ...finish, user: CAPI_USERS.capi }), policy), [
      held(CAPI_USERS.capi.username, CAPI, 'none configured'),
    ]);
  });

  test('under warn it is a warning; off, nothing', () => {
    const input = openshift({ hooks: [ETCD], deleting: true, before: [MAPI], after: [], user: USERS.alice });
    const warn = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'controller-finalizer': 'warn' as const },
    };
    const warned = webhook(input, warn).decision;
    assert.deepEqual([warned.allowed, warned.warnings.map((v) => v.rule)], [true, ['controller-finalizer']]);
    const off = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'controller-finalizer': 'off' as const },
    };
    assert.deepEqual(webhook(input, off).sent, false);
  });

  test('explain and the audit say a deleting Machine with hooks has its finalizers held for the controller', () => {
    const unknown = { status: 'unknown', reason: 'test' } as const;
    const facts = {
      source: 'file',
      grants: unknown,
      serviceAccounts: unknown,
      node: unknown,
      clusterOperators: {},
    } as const;
    const note =
      `finalizers held for the controller (controller-finalizer): while hooks remain, only ${MAPI_CONTROLLER} ` +
      `removes finalizer ${MAPI} or the last finalizer; anyone else is refused, break-glass is warned and audited`;
    const deletingMachine = machine({ preDrain: [ETCD], deletionTimestamp: DELETING });
    const notes = (object: ReturnType<typeof machine>, policy: Policy = DEFAULT_POLICY) =>
      explainMachine({ object, policy, facts }).notes;
    assert.ok(notes(deletingMachine).includes(note), notes(deletingMachine).join('\n'));
    assert.ok(!notes(machine({ deletionTimestamp: DELETING })).includes(note));
    assert.ok(!notes(machine({ preDrain: [ETCD] })).includes(note));
    const off = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'controller-finalizer': 'off' as const },
    };
    assert.ok(!notes(deletingMachine, off).includes(note));
    // The audit's stuck-deletion finding says it in its fix.
    const audit = { ...reviewInput({ operation: 'CREATE', object: deletingMachine }), source: 'audit' as const };
    const stuck = evaluate(DEFAULT_POLICY, {
      ...audit,
      context: { deletion: { nowMs: Date.parse(DELETING) + 7_200_000, stuckAfterMs: 3_600_000 } },
    }).denials.filter((v) => v.rule === 'stuck-deletion');
    assert.equal(stuck.length, 1);
    assert.ok(
      stuck[0]?.fix?.endsWith('; removing its finalizers instead is refused to all but its controller'),
      stuck[0]?.fix,
    );
  });
});
