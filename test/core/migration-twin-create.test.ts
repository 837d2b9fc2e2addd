// The mirror's proof must rest on nothing a non-owner can write (issue #34.4): a copy of a migrated Machine created
// without a hook its twin carries would, once authoritative, make the synchronizer's removal of that hook a "mirror".
// So such a CREATE is judged: only the owner's identities, the synchronizer, the machine controllers or break-glass.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { evaluate } from '../../src/core/engine.js';
import { createJudgedAgainstTwin, twinHooksLeftOut, twinRequest } from '../../src/core/migration.js';
import type { KubeObject, ReviewInput, TwinFact, UserInfo } from '../../src/core/types.js';
import { clusterAPICopy, machineAPICopy } from '../fixtures/migration.js';
import { ETCD, USERS } from '../fixtures/openshift.js';

const NAME = 'ci-ln-7x2k9-master-3';
const GUARD = { name: 'drain-guard', owner: 'team/guard' };
const ALICE: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const SYNC: UserInfo = {
  username: 'system:serviceaccount:openshift-cluster-api:capi-controllers',
  groups: ['system:serviceaccounts', 'system:authenticated'],
};
const MAPI_CONTROLLER: UserInfo = {
  username: 'system:serviceaccount:openshift-machine-api:machine-api-controllers',
  groups: ['system:serviceaccounts', 'system:authenticated'],
};

const mapiMachine = (preDrain: Array<{ name: string; owner: string }>, namespace?: string): KubeObject =>
  machineAPICopy(preDrain, { name: NAME, spec: 'MachineAPI', ...(namespace ? { namespace } : {}) });
const capiMachine = (preDrain: Array<{ name: string; owner: string }>): KubeObject =>
  clusterAPICopy(preDrain, { name: NAME });

/** A CREATE as the webhook's transport hands it to the engine (no request name: a client that sets metadata.name). */
function create(object: KubeObject, user: UserInfo, twin?: TwinFact): ReviewInput {
  const [group, version] = String(object['apiVersion']).split('/') as [string, string];
  const meta = object['metadata'] as { namespace: string };
  return {
    operation: 'CREATE',
    kind: { group, version, kind: 'Machine' },
    namespace: meta.namespace,
    object,
    oldObject: null,
    userInfo: user,
    dryRun: false,
    ...(twin ? { context: { twin } } : {}),
  };
}

const found = (object: KubeObject): TwinFact => ({ found: true, object });
const policyFile = (line: string) =>
  parsePolicy(['apiVersion: hookkeeper.io/v1alpha1', 'kind: Policy', line].join('\n'), 'policy.yaml');

describe('migration: a copy created without its twin’s hooks', () => {
  test('a hook-less Cluster API copy of a Machine API Machine carrying the etcd hook, by alice: refused', () => {
    const d = evaluate(DEFAULT_POLICY, create(capiMachine([]), ALICE, found(mapiMachine([ETCD]))));
    assert.equal(d.allowed, false);
    assert.equal(d.denials.length, 1);
    assert.equal(
      d.denials[0]?.message,
      'metadata.name: Forbidden: "alice" may not create cluster.x-k8s.io/Machine "ci-ln-7x2k9-master-3" without hook ' +
        '"EtcdQuorumOperator" (preDrain, owner "clusteroperator/etcd") that its migration twin machine.openshift.io/Machine ' +
        "openshift-machine-api/ci-ln-7x2k9-master-3 carries: only the hook's owner, the migration's synchronizer or a " +
        "machine controller makes such a copy, since the synchronizer would read it as the owner's removal; create it with " +
        'the hook, or break-glass: group system:masters',
    );
  });

  test('a hook-less Machine API twin of a Cluster API Machine carrying the etcd hook, by alice: refused', () => {
    const d = evaluate(DEFAULT_POLICY, create(mapiMachine([]), ALICE, found(capiMachine([ETCD]))));
    assert.equal(d.allowed, false);
    assert.match(d.denials[0]?.message ?? '', /without hook "EtcdQuorumOperator"/);
  });

  test('the hook under another owner is not the twin’s hook: refused', () => {
    const copy = capiMachine([{ name: ETCD.name, owner: 'team/guard' }]);
    assert.equal(evaluate(DEFAULT_POLICY, create(copy, ALICE, found(mapiMachine([ETCD])))).allowed, false);
  });

  test('a copy carrying the twin’s hooks, with their owners: allowed', () => {
    const d = evaluate(DEFAULT_POLICY, create(capiMachine([ETCD, GUARD]), ALICE, found(mapiMachine([ETCD, GUARD]))));
    assert.equal(d.allowed, true, JSON.stringify(d.denials));
  });

  test('an unprotected owner’s hook left out: anyone may remove it anyway (unverifiedRemoval: warn), so allowed', () => {
    assert.equal(
      evaluate(DEFAULT_POLICY, create(capiMachine([ETCD]), ALICE, found(mapiMachine([ETCD, GUARD])))).allowed,
      true,
    );
    const strict = policyFile('unverifiedRemoval: deny');
    assert.equal(
      evaluate(strict, create(capiMachine([ETCD]), ALICE, found(mapiMachine([ETCD, GUARD])))).allowed,
      false,
    );
  });

  test('the owner’s registered identity, the synchronizer and the machine controller: allowed', () => {
    for (const user of [USERS.etcdOperator, SYNC, MAPI_CONTROLLER]) {
      const d = evaluate(DEFAULT_POLICY, create(mapiMachine([]), user, found(capiMachine([ETCD]))));
      assert.equal(d.allowed, true, `${user.username}: ${JSON.stringify(d.denials)}`);
    }
  });

  test('break-glass: allowed, warned and audited', () => {
    const admin: UserInfo = { username: 'kube:admin', groups: ['system:masters'] };
    const d = evaluate(DEFAULT_POLICY, create(capiMachine([]), admin, found(mapiMachine([ETCD]))));
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.notices.map((n) => [n.audit?.key, n.warning, n.breakGlass]),
      [
        [
          'break-glass-twin-creation',
          'break-glass: kube:admin creates "ci-ln-7x2k9-master-3" without hook "EtcdQuorumOperator" of owner ' +
            '"clusteroperator/etcd" that its migration twin carries; audited',
          // Counted with every break-glass act (hookkeeper_break_glass_total).
          { action: 'twin-creation', owners: ['clusteroperator/etcd'] },
        ],
      ],
    );
  });

  test('no twin, or no lookup (serve --no-cluster): nothing to judge', () => {
    const notFound: TwinFact = { found: false, reason: 'NotFound', message: '404' };
    assert.equal(evaluate(DEFAULT_POLICY, create(capiMachine([]), ALICE, notFound)).allowed, true);
    assert.equal(evaluate(DEFAULT_POLICY, create(capiMachine([]), ALICE)).allowed, true);
  });

  test('the twin could not be read: refused, to be retried', () => {
    const timeout: TwinFact = { found: false, reason: 'Timeout', message: 'no answer within 2000ms' };
    const d = evaluate(DEFAULT_POLICY, create(capiMachine([]), ALICE, timeout));
    assert.equal(d.allowed, false);
    assert.match(d.denials[0]?.message ?? '', /could not be read \(Timeout\).*retry$/);
  });

  test('outside the migration namespaces, and with no synchronizer, nothing is judged or looked up', () => {
    const elsewhere = create(mapiMachine([], 'team-a'), ALICE, found(capiMachine([ETCD])));
    assert.equal(createJudgedAgainstTwin(DEFAULT_POLICY, elsewhere), false);
    assert.equal(twinRequest(DEFAULT_POLICY, elsewhere), undefined);
    const off = policyFile('migration: {synchronizers: []}');
    const input = create(mapiMachine([]), ALICE, found(capiMachine([ETCD])));
    assert.equal(twinHooksLeftOut(off, input), undefined);
    assert.equal(evaluate(off, input).allowed, true);
  });

  test('the lookup a judged CREATE asks for: the other copy, by the object’s name', () => {
    assert.deepEqual(twinRequest(DEFAULT_POLICY, create(mapiMachine([]), ALICE)), {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Machine',
      resource: 'machines',
      namespaced: true,
      namespace: 'openshift-cluster-api',
      name: NAME,
      key: `cluster.x-k8s.io/v1beta1/Machine/openshift-cluster-api/${NAME}`,
    });
    assert.equal(twinRequest(DEFAULT_POLICY, create(mapiMachine([]), SYNC)), undefined);
    assert.equal(twinRequest(DEFAULT_POLICY, create(mapiMachine([]), MAPI_CONTROLLER)), undefined);
  });
});
