// Rule unprotected-owner (audit): hooks whose owner no identity can act for, judged from the RBAC index the audit
// passes as the ownership fact; registered identities or a grant protect an owner, the empty owner is not reported.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject, Ownership, ReviewInput } from '../../src/core/types.js';
import {
  CAPI_USERS,
  capiInput,
  capiMachine,
  capiPolicy,
  capiTemplate,
  KCP_CLEANUP,
  PRE_DRAIN,
} from '../fixtures/capi.js';
import { reviewInput } from '../fixtures/input.js';
import { ETCD, machine, USERS, type HookSpec } from '../fixtures/openshift.js';

const BACKUP = { name: 'BackupFileSystem', owner: 'my-backup-controller' };
const STORAGE = { name: 'storage.example.com/Migrate', owner: 'team/storage' };

/** A stored object as the audit judges it: source audit, with the ownership fact when given. */
function audited(object: KubeObject, ownership?: Ownership, base?: ReviewInput): ReviewInput {
  const input = base ?? reviewInput({ operation: 'CREATE', object, user: USERS.alice });
  return { ...input, source: 'audit', ...(ownership ? { context: { ownership } } : {}) };
}

function findings(hooks: HookSpec[], ownership?: Ownership, policy: Policy = DEFAULT_POLICY) {
  const d = evaluate(policy, audited(machine({ preDrain: hooks }), ownership));
  return d.warnings.filter((v) => v.rule === 'unprotected-owner');
}

const none: Ownership = { granted: new Set(), access: {}, grantsKnown: true };

describe('unprotected-owner', () => {
  test('an owner neither registered nor granted is reported, warn by default, with the grant to add', () => {
    const found = findings([ETCD, BACKUP], none);
    assert.deepEqual(
      found.map((v) => [v.path, v.message, v.fix]),
      [
        [
          'spec.lifecycleHooks.preDrain[1]',
          'preDrain hook "BackupFileSystem" is owned by "my-backup-controller", which no identity can act for: it is not ' +
            'registered in the policy and no RBAC grant of remove on hookowners.hookkeeper.io names it',
          'grant it to the controller that owns the hook: kubectl create clusterrole hookowner-my-backup-controller ' +
            '--verb=remove --resource=hookowners.hookkeeper.io --resource-name=my-backup-controller && kubectl create ' +
            'clusterrolebinding hookowner-my-backup-controller --clusterrole=hookowner-my-backup-controller ' +
            '--serviceaccount=<namespace>:<name> (before setting unverifiedRemoval: deny)',
        ],
      ],
    );
  });

  test('grants not listed yet: no owner is judged unprotected', () => {
    assert.deepEqual(findings([ETCD, BACKUP], { granted: new Set(), access: {}, grantsKnown: false }), []);
  });

  test('a grant protects an owner; so does a registry entry with an identity, but not an empty one', () => {
    assert.deepEqual(
      findings([BACKUP, STORAGE], { granted: new Set(['my-backup-controller']), access: {}, grantsKnown: true }).length,
      1,
    );
    const empty: Policy = {
      ...DEFAULT_POLICY,
      owners: { ...DEFAULT_POLICY.owners, 'team/storage': { users: [], groups: [], serviceAccounts: [] } },
    };
    assert.match(findings([STORAGE], none, empty)[0]?.message ?? '', /its registry entry lists no identity/);
    const withIdentity: Policy = {
      ...DEFAULT_POLICY,
      owners: {
        ...DEFAULT_POLICY.owners,
        'team/storage': { users: [], groups: ['storage-admins'], serviceAccounts: [] },
      },
    };
    assert.deepEqual(findings([STORAGE], none, withIdentity), []);
  });

  test('without the ownership fact (the audit did not read RBAC) nothing is reported', () => {
    assert.deepEqual(findings([BACKUP]), []);
  });

  test('only the audit runs it; templates are not reported, their Machines are', () => {
    const admission = evaluate(DEFAULT_POLICY, {
      ...reviewInput({ operation: 'CREATE', object: machine({ preDrain: [BACKUP] }), user: USERS.alice }),
      context: { ownership: none },
    });
    assert.deepEqual(admission.warnings, []);
    const template = capiTemplate('MachineSet', { [`${PRE_DRAIN}/team-x-hook`]: 'team-x' });
    const d = evaluate(
      capiPolicy(),
      audited(template, none, capiInput({ operation: 'CREATE', object: template, user: CAPI_USERS.alice })),
    );
    assert.deepEqual(
      d.warnings.filter((v) => v.rule === 'unprotected-owner'),
      [],
    );
  });

  test('deny under the policy makes it a failure; the fix no longer mentions switching', () => {
    const policy: Policy = {
      ...DEFAULT_POLICY,
      unverifiedRemoval: 'deny',
      enforcement: { ...DEFAULT_POLICY.enforcement, 'unprotected-owner': 'deny' },
    };
    const d = evaluate(policy, audited(machine({ preDrain: [BACKUP] }), none));
    const found = d.denials.find((v) => v.rule === 'unprotected-owner');
    assert.equal(found?.hook?.owner, 'my-backup-controller');
    assert.doesNotMatch(found?.fix ?? '', /before setting/);
  });

  test('Cluster API annotation hooks too; the empty owner (kcp-cleanup) is not reported: it has no name to grant', () => {
    const object = capiMachine({ annotations: { [`${PRE_DRAIN}/team-x-hook`]: 'team-x' } });
    assert.ok(JSON.stringify(object).includes(KCP_CLEANUP));
    const d = evaluate(
      capiPolicy(),
      audited(object, none, capiInput({ operation: 'CREATE', object, user: CAPI_USERS.alice })),
    );
    assert.deepEqual(
      d.warnings.filter((v) => v.rule === 'unprotected-owner').map((v) => v.hook),
      [{ stage: 'preDrain', name: 'team-x-hook', owner: 'team-x' }],
    );
  });
});
