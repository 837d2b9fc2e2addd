// Hook ownership through RBAC: protected owners (registered or granted), the RBAC route, unverified
// removals under unverifiedRemoval allow/warn/deny, the route in the audit annotation, and the transport's helper.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import { MAX_WARNING_LENGTH } from '../../src/admission/limits.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { grantCommand, MAX_OWNERS_CHECKED } from '../../src/core/ownership.js';
import { ownersToCheck } from '../../src/rules/owner-only-removal/owners-to-check.js';
import type { Policy, UnverifiedRemoval } from '../../src/core/policy.js';
import type { Ownership, ReviewInput, UserInfo } from '../../src/core/types.js';
import { CAPI_USERS, capiInput, capiMachine, capiPolicy, KCP_CLEANUP, PRE_DRAIN } from '../fixtures/capi.js';
import { reviewInput } from '../fixtures/input.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';

const BACKUP = { name: 'BackupFileSystem', owner: 'my-backup-controller' };
const STORAGE = { name: 'storage.example.com/Migrate', owner: 'team/storage' };
const BOB: UserInfo = { username: 'bob', groups: ['system:authenticated'] };

function policyWith(unverifiedRemoval: UnverifiedRemoval, more: Partial<Policy> = {}): Policy {
  return { ...DEFAULT_POLICY, unverifiedRemoval, ...more };
}

function input(before: HookSpec[], after: HookSpec[], user: UserInfo, ownership?: Ownership): ReviewInput {
  const base = reviewInput({
    operation: 'UPDATE',
    // Workers: a control-plane Machine lacking the etcd hook would add missing-default-hook's warning.
    object: machine({ role: 'worker', preDrain: after, resourceVersion: '48300' }),
    oldObject: machine({ role: 'worker', preDrain: before }),
    user,
  });
  return ownership ? { ...base, context: { ownership } } : base;
}

function facts(granted: string[], access: Ownership['access'] = {}): Ownership {
  return { granted: new Set(granted), access, grantsKnown: true };
}

const ROLE_LINE =
  'kubectl create clusterrole hookowner-team-storage --verb=remove --resource=hookowners.hookkeeper.io --resource-name=team/storage';

describe('unprotected owners: unverifiedRemoval', () => {
  test('the default is warn: allowed, a warning naming hook, owner, user and grant, an audit annotation, a count', () => {
    const d = evaluate(DEFAULT_POLICY, input([ETCD, BACKUP], [ETCD], BOB));
    assert.equal(d.allowed, true);
    assert.deepEqual(d.notices, [
      {
        rule: 'owner-only-removal',
        warning:
          'unverified: hook BackupFileSystem of my-backup-controller; grant remove on hookowners/my-backup-controller; by bob',
        audit: {
          key: 'unverified-hook-removal',
          value:
            '{"stage":"preDrain","hook":"BackupFileSystem","owner":"my-backup-controller","user":"bob","action":"removal","route":"unverified"}',
        },
        unverifiedOwner: 'my-backup-controller',
        hook: { stage: 'preDrain', name: 'BackupFileSystem', owner: 'my-backup-controller' },
        path: 'spec.lifecycleHooks.preDrain[1]',
        // For the CLI: protect the owner (its grant, as unprotected-owner's fix spells it), or keep the hook.
        fix:
          'if "my-backup-controller" removed its own hook, nothing is wrong; to have removals of its hooks verified, ' +
          'grant it to the controller that owns the hook (kubectl create clusterrole hookowner-my-backup-controller ' +
          '--verb=remove --resource=hookowners.hookkeeper.io --resource-name=my-backup-controller && kubectl create ' +
          'clusterrolebinding hookowner-my-backup-controller --clusterrole=hookowner-my-backup-controller ' +
          '--serviceaccount=<namespace>:<name>) or register it under owners in the hookkeeper policy; otherwise keep ' +
          'the hook: "my-backup-controller" removes it when its work is done',
      },
    ]);
  });

  test('the webhook answers it within the warning limits, with the audit annotation', () => {
    const out = handle('validate', DEFAULT_POLICY, input([ETCD, BACKUP], [ETCD], BOB));
    assert.equal(out.result.allowed, true);
    assert.equal(out.result.warnings.length, 1);
    assert.ok((out.result.warnings[0] ?? '').length <= MAX_WARNING_LENGTH, out.result.warnings[0]);
    assert.deepEqual(Object.keys(out.result.auditAnnotations), ['unverified-hook-removal']);
  });

  test('changing the owner is re-owning, and warned the same way', () => {
    const d = evaluate(DEFAULT_POLICY, input([BACKUP], [{ ...BACKUP, owner: 'bob' }], BOB));
    assert.equal(d.allowed, true);
    assert.match(
      d.notices[0]?.warning ?? '',
      /^unverified: hook BackupFileSystem of my-backup-controller; grant .*; re-owned by bob$/,
    );
    assert.match(d.notices[0]?.audit.value ?? '', /"action":"owner-change","route":"unverified"/);
  });

  test('allow: silent', () => {
    assert.deepEqual(evaluate(policyWith('allow'), input([ETCD, BACKUP], [ETCD], BOB)), {
      allowed: true,
      denials: [],
      warnings: [],
      notices: [],
    });
  });

  test('deny: refused, the message says what to grant', () => {
    const d = evaluate(policyWith('deny'), input([STORAGE], [], BOB));
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'spec.lifecycleHooks.preDrain[0]: Forbidden: "bob" may not remove preDrain hook "storage.example.com/Migrate" owned by "team/storage"; ' +
          'no identity is registered or granted for that owner and unverifiedRemoval is deny (break-glass: group system:masters); ' +
          `to let "bob" act for it: ${ROLE_LINE} && kubectl create clusterrolebinding hookowner-team-storage-bob --clusterrole=hookowner-team-storage --user=bob`,
      ],
    );
  });

  test('deny: RBAC that allows the user lets the removal through, routed rbac', () => {
    const d = evaluate(policyWith('deny'), input([STORAGE], [], BOB, facts([], { 'team/storage': 'allowed' })));
    assert.equal(d.allowed, true);
    assert.equal(d.notices[0]?.warning, undefined);
    assert.match(d.notices[0]?.audit.value ?? '', /"route":"rbac"/);
  });

  test('deny: when RBAC could not be asked, the message says so', () => {
    const d = evaluate(policyWith('deny'), input([STORAGE], [], BOB, facts([], { 'team/storage': 'unknown' })));
    assert.equal(d.allowed, false);
    assert.match(d.denials[0]?.message ?? '', /whether RBAC lets "bob" act for "team\/storage" could not be checked/);
  });

  test('break-glass still removes anything, warned, routed break-glass', () => {
    const d = evaluate(policyWith('deny'), input([STORAGE], [], USERS.admin));
    assert.equal(d.allowed, true);
    assert.match(d.notices[0]?.warning ?? '', /^break-glass: kube:admin may remove/);
    assert.equal(d.notices[0]?.audit.key, 'break-glass-hook-removal');
    assert.match(d.notices[0]?.audit.value ?? '', /"route":"break-glass"/);
  });
});

describe('grants not listed yet (grantsKnown false): no owner the registry does not cover is allowed as unprotected', () => {
  const unlisted = (access: Ownership['access'] = {}): Ownership => ({
    granted: new Set(),
    access,
    grantsKnown: false,
  });

  for (const mode of ['allow', 'warn', 'deny'] as const) {
    test(`${mode}: refused, the message says whether a grant protects the owner could not be checked`, () => {
      const d = evaluate(policyWith(mode), input([STORAGE], [], BOB, unlisted({ 'team/storage': 'denied' })));
      assert.equal(d.allowed, false);
      assert.match(
        d.denials[0]?.message ?? '',
        /"bob" may not remove .*; no identity is registered for that owner, and whether an RBAC grant protects it could not be checked/,
      );
      assert.match(d.denials[0]?.message ?? '', /kubectl create clusterrolebinding hookowner-team-storage-bob/);
    });
  }

  test('neither the grants nor the access answered: "could not be checked ... not allowed" said once', () => {
    const d = evaluate(policyWith('warn'), input([STORAGE], [], BOB, unlisted({ 'team/storage': 'unknown' })));
    assert.equal(d.allowed, false);
    const message = d.denials[0]?.message ?? '';
    assert.equal(message.match(/could not be checked/g)?.length, 1, message);
    assert.equal(message.match(/not allowed/g)?.length, 1, message);
    assert.match(
      message,
      /no identity is registered for that owner, and whether an RBAC grant protects it \(hookkeeper has not listed the cluster's RBAC\) or lets "bob" act for it could not be checked, so the removal is not allowed \(break-glass: group system:masters\); to let "bob" act for it: /,
    );
  });

  test('RBAC that answers allowed still lets the removal through, routed rbac', () => {
    const d = evaluate(policyWith('deny'), input([STORAGE], [], BOB, unlisted({ 'team/storage': 'allowed' })));
    assert.equal(d.allowed, true);
    assert.match(d.notices[0]?.audit.value ?? '', /"route":"rbac"/);
  });

  test('the empty owner has no grant to wait for: unverifiedRemoval applies', () => {
    const empty = { name: 'Cleanup', owner: '' };
    const d = evaluate(DEFAULT_POLICY, input([empty], [], BOB, unlisted()));
    assert.equal(d.allowed, true);
    assert.match(d.notices[0]?.warning ?? '', /has no owner to grant/);
  });

  test('under allow, an owner missing from unlisted grants is still asked about', () => {
    const i = { ...input([STORAGE], [], BOB), context: { ownership: unlisted() } };
    assert.deepEqual(ownersToCheck(policyWith('allow'), i), ['team/storage']);
  });
});

test('without the ownership fact (no cluster, validate) the registry decides and nothing says "could not be checked"', () => {
  for (const mode of ['allow', 'warn', 'deny'] as const) {
    const d = evaluate(policyWith(mode), input([STORAGE], [], BOB));
    assert.equal(d.allowed, mode !== 'deny', mode);
    const text = [...d.denials.map((v) => v.message), ...d.notices.map((n) => n.warning ?? '')].join('\n');
    assert.doesNotMatch(text, /could not be checked/, mode);
  }
});

describe('protected owners: registered or granted', () => {
  test('a grant protects an owner: someone RBAC does not allow is denied, with the grant to make', () => {
    const d = evaluate(
      DEFAULT_POLICY,
      input([STORAGE], [], BOB, facts(['team/storage'], { 'team/storage': 'denied' })),
    );
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        'spec.lifecycleHooks.preDrain[0]: Forbidden: "bob" may not remove preDrain hook "storage.example.com/Migrate" owned by "team/storage"; ' +
          'only its owner may: whom RBAC allows (break-glass: group system:masters); ' +
          `to let "bob" act for it: ${ROLE_LINE} && kubectl create clusterrolebinding hookowner-team-storage-bob --clusterrole=hookowner-team-storage --user=bob`,
      ],
    );
  });

  test('whom RBAC allows removes it, and the audit annotation says rbac', () => {
    const d = evaluate(
      DEFAULT_POLICY,
      input([STORAGE], [], BOB, facts(['team/storage'], { 'team/storage': 'allowed' })),
    );
    assert.equal(d.allowed, true);
    assert.deepEqual(d.notices, [
      {
        rule: 'owner-only-removal',
        audit: {
          key: 'hook-removal',
          value:
            '{"stage":"preDrain","hook":"storage.example.com/Migrate","owner":"team/storage","user":"bob","action":"removal","route":"rbac"}',
        },
      },
    ]);
    // An audit-only trace is not a warning.
    assert.deepEqual(
      handle(
        'validate',
        DEFAULT_POLICY,
        input([STORAGE], [], BOB, facts(['team/storage'], { 'team/storage': 'allowed' })),
      ).result.warnings,
      [],
    );
  });

  test("RBAC that could not be asked never allows a protected owner's hook to go; the message says so", () => {
    for (const access of [{ 'team/storage': 'unknown' }, {}] as Array<Ownership['access']>) {
      const d = evaluate(DEFAULT_POLICY, input([STORAGE], [], BOB, facts(['team/storage'], access)));
      assert.equal(d.allowed, false);
      assert.match(
        d.denials[0]?.message ?? '',
        /; whether RBAC lets "bob" act for "team\/storage" could not be checked, so the removal is not allowed; to let "bob"/,
      );
    }
  });

  test('a grant adds an identity to a registered owner', () => {
    const allowed = evaluate(
      DEFAULT_POLICY,
      input([ETCD], [], USERS.alice, facts([], { 'clusteroperator/etcd': 'allowed' })),
    );
    assert.equal(allowed.allowed, true);
    assert.match(allowed.notices[0]?.audit.value ?? '', /"route":"rbac"/);
    const denied = evaluate(
      DEFAULT_POLICY,
      input([ETCD], [], USERS.alice, facts([], { 'clusteroperator/etcd': 'denied' })),
    );
    assert.equal(denied.allowed, false);
  });

  test('a registered identity removes its hook: allowed, audited as registry, no warning', () => {
    const d = evaluate(DEFAULT_POLICY, input([ETCD], [], USERS.etcdOperator));
    assert.deepEqual(d.notices, [
      {
        rule: 'owner-only-removal',
        audit: {
          key: 'hook-removal',
          value:
            '{"stage":"preDrain","hook":"EtcdQuorumOperator","owner":"clusteroperator/etcd","user":"system:serviceaccount:openshift-etcd-operator:etcd-operator","action":"removal","route":"registry"}',
        },
      },
    ]);
  });

  test('a service account is granted with --serviceaccount, odd owners are quoted for the shell', () => {
    assert.equal(
      grantCommand("team x's/hooks", USERS.machineApi),
      "kubectl create clusterrole hookowner-team-x-s-hooks --verb=remove --resource=hookowners.hookkeeper.io --resource-name='team x'\\''s/hooks' " +
        '&& kubectl create clusterrolebinding hookowner-team-x-s-hooks-system-serviceaccount-openshift-machine-api-machine-api-controllers ' +
        '--clusterrole=hookowner-team-x-s-hooks --serviceaccount=openshift-machine-api:machine-api-controllers',
    );
  });
});

test('owners named like prototype properties are looked up as own keys only', () => {
  for (const owner of ['constructor', 'toString', '__proto__']) {
    const hook = { name: 'Odd', owner };
    const unknown = evaluate(DEFAULT_POLICY, input([hook], [], BOB, facts([owner], {})));
    assert.match(unknown.denials[0]?.message ?? '', /could not be checked/, owner);
    const access = JSON.parse(`{${JSON.stringify(owner)}: "allowed"}`) as Ownership['access'];
    assert.equal(evaluate(DEFAULT_POLICY, input([hook], [], BOB, facts([owner], access))).allowed, true, owner);
  }
});

describe('strictOwners with grants', () => {
  const strict = policyWith('warn', { strictOwners: true });
  const add = (ownership?: Ownership) => evaluate(strict, input([ETCD], [ETCD, STORAGE], USERS.alice, ownership));

  test('a granted owner may be added (by whom RBAC lets act for it); an owner with neither registry entry nor grant may not', () => {
    assert.equal(add(facts(['team/storage'], { 'team/storage': 'allowed' })).allowed, true);
    const d = add(facts(['someone/else']));
    assert.equal(d.allowed, false);
    assert.equal(
      d.denials[0]?.message,
      'spec.lifecycleHooks.preDrain[1].owner: Invalid value: "team/storage": owner of hook "storage.example.com/Migrate" is not registered in the policy and strictOwners is on, and no RBAC grant of remove on hookowners.hookkeeper.io names it',
    );
  });

  test('without the cluster side, the message says RBAC was not consulted', () => {
    assert.match(add().denials[0]?.message ?? '', /names it \(RBAC not consulted\)$/);
  });
});

describe('Cluster API: the empty owner (kcp-cleanup) has no name to grant and stays unverified', () => {
  const before = { [KCP_CLEANUP]: '', [`${PRE_DRAIN}/team-x-hook`]: 'team-x' };
  const remove = (policy: Policy, user: UserInfo, ownership?: Ownership) => {
    const oldObject = capiMachine({ annotations: before });
    const object = capiMachine({
      withoutKcpAnnotations: true,
      annotations: { [`${PRE_DRAIN}/team-x-hook`]: 'team-x' },
    });
    const i = capiInput({ operation: 'UPDATE', object, oldObject, user });
    return evaluate(policy, ownership ? { ...i, context: { ownership } } : i);
  };

  test('warn: allowed with a warning that says there is no owner to grant', () => {
    const d = remove(capiPolicy(), CAPI_USERS.kcp, facts([], { '': 'allowed' }));
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.notices.map((n) => n.warning),
      [`unverified: hook kcp-cleanup has no owner to grant; by ${CAPI_USERS.kcp.username}`],
    );
    assert.equal(d.notices[0]?.unverifiedOwner, '');
  });

  test('deny: only break-glass removes it', () => {
    const deny = capiPolicy('unverifiedRemoval: deny\n');
    const d = remove(deny, CAPI_USERS.kcp);
    assert.equal(d.allowed, false);
    assert.match(
      d.denials[0]?.message ?? '',
      /which has no owner; no grant can name an empty owner and unverifiedRemoval is deny, so only break-glass may/,
    );
    assert.equal(remove(deny, CAPI_USERS.admin).allowed, true);
  });
});

describe('ownersToCheck: the owners the webhook asks SubjectAccessReview about', () => {
  const TEAM_A = { name: 'HookA', owner: 'team/a' };
  const TEAM_B = { name: 'HookB', owner: 'team/b' };

  test('owners of hooks removed or re-owned by someone the registry does not cover, once each', () => {
    const i = input([ETCD, STORAGE, TEAM_A, { ...TEAM_B, owner: 'team/a' }], [{ ...TEAM_A, owner: 'bob' }], BOB);
    assert.deepEqual(ownersToCheck(DEFAULT_POLICY, i), ['clusteroperator/etcd', 'team/storage', 'team/a']);
  });

  test('none for the registered identity, break-glass, a CREATE, or when the rule is off', () => {
    assert.deepEqual(ownersToCheck(DEFAULT_POLICY, input([ETCD], [], USERS.etcdOperator)), []);
    assert.deepEqual(ownersToCheck(DEFAULT_POLICY, input([ETCD, STORAGE], [], USERS.admin)), []);
    const create = reviewInput({ operation: 'CREATE', object: machine({ preDrain: [] }), user: BOB });
    assert.deepEqual(ownersToCheck(DEFAULT_POLICY, create), []);
    const off: Policy = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'owner-only-removal': 'off' },
    };
    assert.deepEqual(ownersToCheck(off, input([ETCD], [], BOB)), []);
  });

  test('the registered user of one owner is still asked about the others', () => {
    assert.deepEqual(ownersToCheck(DEFAULT_POLICY, input([ETCD, STORAGE], [], USERS.etcdOperator)), ['team/storage']);
  });

  test('under allow, an owner known to be unprotected is not asked about; one that may be granted is', () => {
    const allow = policyWith('allow');
    const i = input([STORAGE, TEAM_A], [], BOB);
    assert.deepEqual(ownersToCheck(allow, i, new Set(['team/a'])), ['team/a']);
    assert.deepEqual(ownersToCheck(allow, i), ['team/storage', 'team/a']);
    assert.deepEqual(ownersToCheck(policyWith('warn'), i, new Set()), ['team/storage', 'team/a']);
  });

  test('Cluster API annotation hooks too; the empty owner is never asked about', () => {
    const oldObject = capiMachine({ annotations: { [KCP_CLEANUP]: '', [`${PRE_DRAIN}/team-x-hook`]: 'team-x' } });
    const object = capiMachine({ withoutKcpAnnotations: true });
    assert.deepEqual(
      ownersToCheck(capiPolicy(), capiInput({ operation: 'UPDATE', object, oldObject, user: CAPI_USERS.alice })),
      ['team-x'],
    );
  });

  test(`at most ${MAX_OWNERS_CHECKED} owners per request; the rest count as unknown, never as allowed`, () => {
    const many = Array.from({ length: MAX_OWNERS_CHECKED + 4 }, (_, n) => ({ name: `Hook${n}`, owner: `team/${n}` }));
    const i = input(many, [], BOB);
    const asked = ownersToCheck(DEFAULT_POLICY, i);
    assert.equal(asked.length, MAX_OWNERS_CHECKED);
    const access = Object.fromEntries(asked.map((o) => [o, 'allowed' as const]));
    const d = evaluate(DEFAULT_POLICY, {
      ...i,
      context: {
        ownership: facts(
          many.map((h) => h.owner),
          access,
        ),
      },
    });
    assert.equal(d.allowed, false);
    assert.equal(d.denials.length, 4);
  });
});
