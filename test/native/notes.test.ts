// Divergences as values: render's sentences unchanged, and each verdict divergence covering exactly the requests it
// describes, so the e2e corpus cannot excuse a difference on a request no divergence concerns.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject, ReviewInput } from '../../src/core/types.js';
import { covering, divergences, noteText } from '../../src/compilers/native/notes.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { reviewInput } from '../fixtures/input.js';
import { CAPI_USERS, capiInput, capiMachine } from '../fixtures/capi.js';
import { ETCD, machine, USERS } from '../fixtures/openshift.js';

const policyWith = (patch: Partial<Policy>): Policy => ({ ...structuredClone(DEFAULT_POLICY), ...patch });
const TEAM = { name: 'example.com/Drain', owner: 'team/storage' };

const update = (old: KubeObject, next: KubeObject): ReviewInput =>
  reviewInput({ operation: 'UPDATE', object: next, oldObject: old, user: USERS.alice });

/** The divergences of `policy` that cover `input` when `rules` decided it, by their sentences. */
const covered = (policy: Policy, rules: string[], input: ReviewInput): string[] =>
  covering(divergences(policy), rules, input).map(noteText);

describe('divergence notes', () => {
  test("render's notes are the divergences' sentences, in order, after the API versions' gate", () => {
    for (const policy of [DEFAULT_POLICY, policyWith({ strictOwners: true, unverifiedRemoval: 'deny' })]) {
      const r = renderNativePolicies(policy, { k8sVersion: '1.36' });
      assert.deepEqual(r.notes, r.divergences.map(noteText));
      const older = renderNativePolicies(policy, { k8sVersion: '1.35' });
      assert.deepEqual(older.notes.slice(1), older.divergences.map(noteText));
    }
  });

  test('unverified removals: only a removal of a hook whose owner the policy does not register is covered', () => {
    const rbacOnly = update(machine({ preDrain: [ETCD, TEAM] }), machine({ preDrain: [ETCD] }));
    const registered = update(machine({ preDrain: [ETCD, TEAM] }), machine({ preDrain: [TEAM] }));
    const [note] = covered(DEFAULT_POLICY, ['owner-only-removal'], rbacOnly);
    assert.match(note ?? '', /^owner-only-removal: CEL cannot list the cluster's RBAC/);
    assert.equal(covered(DEFAULT_POLICY, ['owner-only-removal'], rbacOnly).length, 1);
    // The etcd hook's owner is registered: native decides as the webhook, whatever the notes say about the rule.
    assert.deepEqual(covered(DEFAULT_POLICY, ['owner-only-removal'], registered), []);
    // Another rule decided: no owner-only-removal divergence applies.
    assert.deepEqual(covered(DEFAULT_POLICY, ['deletion-freeze'], rbacOnly), []);
    // Under unverifiedRemoval: deny native denies as the webhook does.
    assert.deepEqual(covered(policyWith({ unverifiedRemoval: 'deny' }), ['owner-only-removal'], rbacOnly), []);
  });

  test("the removal of a deleting Machine's etcd hook with its finalizers is covered by no divergence", () => {
    const deleting = '2026-11-24T10:00:00Z';
    const input = update(
      machine({ preDrain: [ETCD], deletionTimestamp: deleting, finalizers: ['machine.machine.openshift.io'] }),
      machine({ preDrain: [], deletionTimestamp: deleting, finalizers: [] }),
    );
    assert.deepEqual(covered(DEFAULT_POLICY, ['owner-only-removal', 'deletion-freeze'], input), []);
  });

  test('strictOwners: covered only when the new object has a hook of an unregistered owner', () => {
    const strict = policyWith({ strictOwners: true });
    const create = (preDrain: Array<{ name: string; owner: string }>) =>
      reviewInput({ operation: 'CREATE', object: machine({ preDrain }), user: USERS.machineApi });
    assert.equal(covered(strict, ['owner-only-removal'], create([ETCD, TEAM])).length, 1);
    assert.deepEqual(covered(strict, ['owner-only-removal'], create([ETCD])), []);
  });

  test("strictOwners: an UPDATE keeping an unregistered owner's hook as it was is not covered (both accept it)", () => {
    const strict = policyWith({ strictOwners: true });
    const stored = machine({ preDrain: [ETCD, TEAM] });
    const relabelled = machine({ preDrain: [ETCD, TEAM] });
    (relabelled['metadata'] as { labels: Record<string, string> }).labels['touched'] = 'yes';
    assert.deepEqual(covered(strict, ['owner-only-removal'], update(stored, relabelled)), []);
    // Added, moved to another stage, or given to the unregistered owner: the webhook checks it, so covered.
    const added = update(machine({ preDrain: [ETCD] }), machine({ preDrain: [ETCD, TEAM] }));
    const moved = update(stored, machine({ preDrain: [ETCD], preTerminate: [TEAM] }));
    const given = update(
      machine({ preDrain: [ETCD, { ...TEAM, owner: ETCD.owner }] }),
      machine({ preDrain: [ETCD, TEAM] }),
    );
    for (const input of [added, moved, given])
      assert.ok(covered(strict, ['owner-only-removal'], input).some((n) => n.includes('under strictOwners')));
  });

  test('single-owner: covered only for a stage naming one hook twice', () => {
    const twice = update(machine({ preDrain: [ETCD] }), machine({ preDrain: [ETCD, { ...ETCD, owner: 'x/y' }] }));
    const cross = update(machine({ preDrain: [ETCD] }), machine({ preDrain: [ETCD], preTerminate: [ETCD] }));
    assert.equal(covered(DEFAULT_POLICY, ['single-owner'], twice).length, 1);
    assert.deepEqual(covered(DEFAULT_POLICY, ['single-owner'], cross), []);
    // A stored object naming one hook twice fails CEL's index of the stored hooks, whatever the new object holds.
    const storedTwice = update(machine({ preDrain: [ETCD, { ...ETCD, owner: 'x/y' }] }), machine({ preDrain: [ETCD] }));
    assert.equal(covered(DEFAULT_POLICY, ['single-owner'], storedTwice).length, 1);
  });

  test('single-owner: two Cluster API keys of one hook name are two hooks, indexed by key: covered by nothing', () => {
    const t = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io';
    const both = { [`${t}-a`]: 'alice', [`${t}/${t}-a`]: 'alice' };
    const input = capiInput({
      operation: 'UPDATE',
      oldObject: capiMachine({ role: 'worker', annotations: both }),
      object: capiMachine({ role: 'worker', annotations: { [`${t}-a`]: 'alice' } }),
      user: CAPI_USERS.alice,
    });
    assert.deepEqual(covered(DEFAULT_POLICY, ['single-owner', 'hook-naming'], input), []);
  });

  test('default hooks on UPDATE: no divergence, the policy matches the UPDATE that makes an object match, as the webhook', () => {
    const old = machine({ role: 'worker', preDrain: [] });
    const relabelled = machine({ role: 'master', preDrain: [] });
    assert.deepEqual(covered(DEFAULT_POLICY, ['default-hooks'], update(old, relabelled)), []);
    assert.ok(!divergences(DEFAULT_POLICY).some((d) => d.rule === 'default-hooks'));
  });

  test('notes about words alone (messages, grant suggestions, audit keys) excuse no verdict', () => {
    // Each rule's own in rule order, then what no rule owns.
    const words = divergences(policyWith({ strictOwners: true })).filter((d) => d.verdictDiffers === undefined);
    assert.deepEqual(
      words.map((d) => d.rule),
      ['owner-only-removal', 'owner-only-removal', 'namespaces', 'messages', 'messages', 'messages'],
    );
  });

  test("an UPDATE the webhook's condition does not send: its lost warnings are words, declared; a hook change is not", () => {
    const unsent = divergences(DEFAULT_POLICY).find((d) => d.text.includes('changes-what-rules-read'));
    assert.ok(unsent?.wordsDiffer && unsent.verdictDiffers === undefined);
    const stored = machine({ preDrain: [ETCD] });
    const meta = stored['metadata'] as { labels?: Record<string, string> };
    const relabelled = { ...stored, metadata: { ...meta, labels: { ...meta.labels, team: 'a' } } };
    assert.equal(unsent.wordsDiffer(update(stored, relabelled)), true);
    assert.equal(unsent.wordsDiffer(update(stored, machine({ preDrain: [ETCD, TEAM] }))), false);
    // missing-default-hook under deny judges what is stored: such an UPDATE is sent, nothing is lost.
    const denies = policyWith({ enforcement: { ...DEFAULT_POLICY.enforcement, 'missing-default-hook': 'deny' } });
    const lost = divergences(denies).find((d) => d.text.includes('changes-what-rules-read'));
    assert.equal(lost?.wordsDiffer?.(update(stored, relabelled)), false);
  });

  test('a stage naming one hook twice: covered for every rule whose CEL reads the name index, single-owner on or off', () => {
    const twice = update(machine({ preDrain: [ETCD] }), machine({ preDrain: [ETCD, { ...ETCD, owner: 'x/y' }] }));
    // With the grants known (none): an added hook of an owner RBAC might protect is another note's (squatting).
    const once: ReviewInput = {
      ...update(machine({ preDrain: [ETCD] }), machine({ preDrain: [ETCD, TEAM] })),
      context: { ownership: { granted: new Set(), access: {}, grantsKnown: true } },
    };
    const off = policyWith({ enforcement: { ...DEFAULT_POLICY.enforcement, 'single-owner': 'off' } });
    for (const rule of ['hook-naming', 'owner-only-removal', 'deletion-freeze']) {
      assert.ok(
        covered(off, [rule], twice).some((n) => n.includes('key already exists')),
        rule,
      );
      assert.deepEqual(covered(off, [rule], once), [], rule);
    }
    // hook-count reads no index: a list naming a hook twice is counted alike.
    assert.deepEqual(covered(off, ['hook-count'], twice), []);
  });

  test('owners RBAC may protect: with the grants the webhook indexed, only a granted owner is covered', () => {
    const facts = (granted: string[]): ReviewInput['context'] => ({
      ownership: { granted: new Set(granted), access: {}, grantsKnown: true },
    });
    const removal = update(machine({ preDrain: [ETCD, TEAM] }), machine({ preDrain: [ETCD] }));
    assert.equal(covered(DEFAULT_POLICY, ['owner-only-removal'], removal).length, 1);
    assert.equal(
      covered(DEFAULT_POLICY, ['owner-only-removal'], { ...removal, context: facts([TEAM.owner]) }).length,
      1,
    );
    assert.deepEqual(covered(DEFAULT_POLICY, ['owner-only-removal'], { ...removal, context: facts([]) }), []);
    // The rule's own decision: where it lets the user remove the hook whatever RBAC protects (break-glass, or RBAC
    // lets the user act for the owner), native mode decides alike, so that removal is not covered.
    const rbacNote = (input: ReviewInput) =>
      covered(DEFAULT_POLICY, ['owner-only-removal'], input).filter((n) =>
        n.includes("CEL cannot list the cluster's RBAC"),
      );
    assert.deepEqual(rbacNote({ ...removal, userInfo: USERS.admin }), []);
    const actsFor = { granted: new Set([TEAM.owner]), access: { [TEAM.owner]: 'allowed' as const }, grantsKnown: true };
    assert.deepEqual(rbacNote({ ...removal, context: { ownership: actsFor } }), []);
    assert.equal(rbacNote({ ...removal, context: { ownership: { ...actsFor, access: {} } } }).length, 1);
    const strict = policyWith({ strictOwners: true });
    const create = reviewInput({ operation: 'CREATE', object: machine({ preDrain: [TEAM] }), user: USERS.machineApi });
    assert.ok(covered(strict, ['owner-only-removal'], create).some((n) => n.includes('under strictOwners')));
    assert.deepEqual(covered(strict, ['owner-only-removal'], { ...create, context: facts([]) }), []);
  });

  test('words: the grant suggestion and the strict-owner refusal are covered only on the requests they concern', () => {
    const wordsOn = (policy: Policy, input: ReviewInput): string[] =>
      divergences(policy)
        .filter((d) => d.wordsDiffer?.(input) === true)
        .map((d) => d.text);
    const grant = /suggests the exact kubectl grant/;
    const registered = update(machine({ preDrain: [ETCD, TEAM] }), machine({ preDrain: [TEAM] }));
    const unregistered = update(machine({ preDrain: [ETCD, TEAM] }), machine({ preDrain: [ETCD] }));
    assert.ok(!wordsOn(DEFAULT_POLICY, registered).some((t) => grant.test(t)));
    assert.ok(wordsOn(DEFAULT_POLICY, unregistered).some((t) => grant.test(t)));
    const upper = { ...registered, userInfo: { username: 'Alice', groups: [] } };
    assert.ok(wordsOn(DEFAULT_POLICY, upper).some((t) => grant.test(t)));
    const strict = policyWith({ strictOwners: true });
    const create = reviewInput({ operation: 'CREATE', object: machine({ preDrain: [TEAM] }), user: USERS.machineApi });
    assert.ok(wordsOn(strict, create).some((t) => /RBAC was not consulted/.test(t)));
    const registeredOnly = reviewInput({
      operation: 'CREATE',
      object: machine({ preDrain: [ETCD] }),
      user: USERS.machineApi,
    });
    assert.deepEqual(wordsOn(strict, registeredOnly), []);
    // Quoting: CEL's strings.quote and JSON differ on a bell or vertical tab, not on a tab or newline.
    const quoting = /strings\.quote/;
    const owned = (owner: string): ReviewInput =>
      reviewInput({ operation: 'CREATE', object: machine({ preDrain: [{ ...TEAM, owner }] }), user: USERS.machineApi });
    assert.ok(wordsOn(DEFAULT_POLICY, owned('team/\x07bell')).some((t) => quoting.test(t)));
    assert.ok(!wordsOn(DEFAULT_POLICY, owned('team/\ttab')).some((t) => quoting.test(t)));
  });
});

describe('the migration divergence', () => {
  const twinOf = (preDrain: Array<{ name: string; owner: string }>): KubeObject => ({
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'm-0', namespace: 'openshift-machine-api' },
    spec: { lifecycleHooks: { preDrain } },
  });
  const copy = (annotations: Record<string, string>): ReviewInput => ({
    operation: 'CREATE',
    kind: { group: 'cluster.x-k8s.io', version: 'v1beta2', kind: 'Machine' },
    namespace: 'openshift-cluster-api',
    object: { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', metadata: { name: 'm-0', annotations } },
    oldObject: null,
    userInfo: USERS.alice,
    dryRun: false,
    context: { twin: { found: true, object: twinOf([ETCD]) } },
  });

  test('covers a CREATE leaving out its twin’s hook, which the webhook refuses and native mode allows', () => {
    const [note] = covered(DEFAULT_POLICY, ['owner-only-removal'], copy({}));
    assert.match(note ?? '', /^owner-only-removal: CEL cannot look up the other copy of a migrated Machine/);
    const carried = copy({ [`pre-drain.delete.hook.machine.cluster.x-k8s.io/${ETCD.name}`]: ETCD.owner });
    assert.deepEqual(covered(DEFAULT_POLICY, ['owner-only-removal'], carried), []);
  });
});
