// Wildcard RBAC rights are not ownership: a removal that RBAC allows for the owner and for the reserved probe owner
// alike is refused under wildcardGrants: deny (the default) and warned and audited under warn; a grant naming the
// owner, the registry and break-glass keep their meaning.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import { MAX_WARNING_LENGTH } from '../../src/admission/limits.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import type { Policy, UnverifiedRemoval } from '../../src/core/policy.js';
import type { Ownership, ReviewInput, UserInfo } from '../../src/core/types.js';
import { reviewInput } from '../fixtures/input.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';

const STORAGE = { name: 'storage.example.com/Migrate', owner: 'team/storage' };
const BACKUP = { name: 'BackupFileSystem', owner: 'my-backup-controller' };
const ERIN: UserInfo = { username: 'erin', groups: ['system:authenticated'] };

function input(before: HookSpec[], after: HookSpec[], user: UserInfo, ownership?: Ownership): ReviewInput {
  const base = reviewInput({
    operation: 'UPDATE',
    object: machine({ preDrain: after, resourceVersion: '48300' }),
    oldObject: machine({ preDrain: before }),
    user,
  });
  return ownership ? { ...base, context: { ownership } } : base;
}

function facts(granted: string[], access: Ownership['access']): Ownership {
  return { granted: new Set(granted), access, grantsKnown: true };
}

const policy = (more: Partial<Policy> = {}): Policy => ({ ...DEFAULT_POLICY, ...more });

/** The wildcard denial, as both engines word it. */
function wildcardDenial(path: string, user: string, hook: HookSpec, grant: string, glass = 'group system:masters') {
  return (
    `${path}: Forbidden: "${user}" may not remove preDrain hook "${hook.name}" owned by "${hook.owner}"; ` +
    `RBAC lets "${user}" act for every hook owner, which is not ownership, and wildcardGrants is deny: use a ` +
    `break-glass identity (break-glass: ${glass}) or one whose grant names the owner; to let an identity act for ` +
    `it: ${grant}`
  );
}

const etcdGrant =
  'kubectl create clusterrole hookowner-clusteroperator-etcd --verb=remove --resource=hookowners.hookkeeper.io ' +
  '--resource-name=clusteroperator/etcd && kubectl create clusterrolebinding hookowner-clusteroperator-etcd ' +
  '--clusterrole=hookowner-clusteroperator-etcd --serviceaccount=<namespace>:<name>';
const storageGrant =
  'kubectl create clusterrole hookowner-team-storage --verb=remove --resource=hookowners.hookkeeper.io ' +
  '--resource-name=team/storage && kubectl create clusterrolebinding hookowner-team-storage ' +
  '--clusterrole=hookowner-team-storage --serviceaccount=<namespace>:<name>';

describe('wildcardGrants: deny (the default)', () => {
  test('a wildcard identity may not remove the etcd hook nor a granted owner’s hook; the denial says what to do', () => {
    const all = [ETCD, STORAGE];
    const d = evaluate(
      DEFAULT_POLICY,
      input(all, [], ERIN, facts(['team/storage'], { 'clusteroperator/etcd': 'wildcard', 'team/storage': 'wildcard' })),
    );
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.denials.map((v) => v.message),
      [
        wildcardDenial('spec.lifecycleHooks.preDrain[0]', 'erin', ETCD, etcdGrant),
        wildcardDenial('spec.lifecycleHooks.preDrain[1]', 'erin', STORAGE, storageGrant),
      ],
    );
    assert.deepEqual(d.notices, []);
  });

  test('a grant naming the owner still lets its holder act for it (route rbac), and only for it', () => {
    const bob: UserInfo = { username: 'bob', groups: [] };
    const ok = evaluate(
      DEFAULT_POLICY,
      input([ETCD, STORAGE], [ETCD], bob, facts(['team/storage'], { 'team/storage': 'allowed' })),
    );
    assert.equal(ok.allowed, true);
    assert.match(ok.notices[0]?.audit.value ?? '', /"route":"rbac"/);
    const etcd = evaluate(
      DEFAULT_POLICY,
      input([ETCD, STORAGE], [STORAGE], bob, facts(['team/storage'], { 'clusteroperator/etcd': 'denied' })),
    );
    assert.equal(etcd.allowed, false);
    assert.match(etcd.denials[0]?.message ?? '', /only its owner may: system:serviceaccount:openshift-etcd-operator/);
  });

  test('the registry and break-glass come first: the etcd operator and system:masters are never asked', () => {
    const wildcard = facts([], { 'clusteroperator/etcd': 'wildcard' });
    assert.equal(evaluate(DEFAULT_POLICY, input([ETCD], [], USERS.etcdOperator, wildcard)).allowed, true);
    const glass = evaluate(DEFAULT_POLICY, input([ETCD], [], USERS.admin, wildcard));
    assert.equal(glass.allowed, true);
    assert.match(glass.notices[0]?.audit.value ?? '', /"route":"break-glass"/);
  });

  test('a break-glass group added for SREs turns the refusal into an audited, warned removal', () => {
    const sre: UserInfo = { username: 'sre-jane', groups: ['system:cluster-admins'] };
    const p = policy({ breakGlass: { users: [], groups: ['system:masters', 'system:cluster-admins'] } });
    const d = evaluate(p, input([ETCD], [], sre, facts([], { 'clusteroperator/etcd': 'wildcard' })));
    assert.equal(d.allowed, true);
    assert.equal(
      d.notices[0]?.warning,
      'break-glass: sre-jane may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited',
    );
  });

  test("an unprotected owner's hook gets unverifiedRemoval's outcome, as if RBAC had said no", () => {
    const access = { 'my-backup-controller': 'wildcard' } as const;
    const expected: Record<UnverifiedRemoval, boolean> = { allow: true, warn: true, deny: false };
    for (const unverifiedRemoval of ['allow', 'warn', 'deny'] as const) {
      const d = evaluate(policy({ unverifiedRemoval }), input([BACKUP], [], ERIN, facts([], access)));
      assert.equal(d.allowed, expected[unverifiedRemoval], unverifiedRemoval);
      if (unverifiedRemoval === 'warn') assert.match(d.notices[0]?.audit.value ?? '', /"route":"unverified"/);
      if (unverifiedRemoval === 'deny')
        assert.match(d.denials[0]?.message ?? '', /RBAC lets "erin" act for every hook owner, which is not ownership/);
    }
  });

  test('an owner whose access could not be checked stays refused as "could not be checked"', () => {
    const d = evaluate(DEFAULT_POLICY, input([ETCD], [], ERIN, facts([], { 'clusteroperator/etcd': 'unknown' })));
    assert.equal(d.allowed, false);
    assert.match(d.denials[0]?.message ?? '', /could not be checked/);
  });
});

describe('wildcardGrants: warn', () => {
  const warn = policy({ wildcardGrants: 'warn' });

  test('allowed with a warning and an audit annotation whose route is wildcard, like break-glass', () => {
    const d = evaluate(
      warn,
      input([ETCD, STORAGE], [STORAGE], ERIN, facts([], { 'clusteroperator/etcd': 'wildcard' })),
    );
    assert.equal(d.allowed, true);
    assert.deepEqual(d.notices, [
      {
        rule: 'owner-only-removal',
        warning: 'wildcard RBAC: erin may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited',
        audit: {
          key: 'wildcard-hook-removal',
          value:
            '{"stage":"preDrain","hook":"EtcdQuorumOperator","owner":"clusteroperator/etcd","user":"erin","action":"removal","route":"wildcard"}',
        },
      },
    ]);
  });

  test("an owner change through wildcard rights is worded as one; an unprotected owner's hook is warned the same way", () => {
    const d = evaluate(
      warn,
      input(
        [STORAGE, BACKUP],
        [{ ...STORAGE, owner: 'team/other' }],
        ERIN,
        facts(['team/storage'], { 'team/storage': 'wildcard', 'my-backup-controller': 'wildcard' }),
      ),
    );
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.notices.map((n) => n.warning),
      [
        'wildcard RBAC: erin may change the owner of preDrain hook storage.example.com/Migrate of team/storage; audited',
        'wildcard RBAC: erin may remove preDrain hook BackupFileSystem of my-backup-controller; audited',
      ],
    );
  });
  test('the webhook answers with the warning, within its limit, and the wildcard-hook-removal audit annotation', () => {
    const out = handle('validate', warn, input([ETCD], [], ERIN, facts([], { 'clusteroperator/etcd': 'wildcard' })));
    assert.equal(out.result.allowed, true);
    assert.equal(out.result.warnings.length, 1);
    assert.ok((out.result.warnings[0] ?? '').length <= MAX_WARNING_LENGTH, out.result.warnings[0]);
    assert.deepEqual(Object.keys(out.result.auditAnnotations), ['wildcard-hook-removal']);
  });
});
