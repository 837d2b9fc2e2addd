// The Machine API to Cluster API migration: the synchronizer's removal of a hook on the non-authoritative copy is
// allowed only as a mirror (the hook already gone from the authoritative twin); anything else stays the owner's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { authoritativeSide, twinRequest } from '../../src/core/migration.js';
import type { Policy } from '../../src/core/policy.js';
import { ownerOnlyRemovalRule } from '../../src/rules/owner-only-removal/rule.js';
import type { KubeObject, ReviewInput, TwinFact, UserInfo } from '../../src/core/types.js';
import { clusterAPICopy, machineAPICopy, type AuthoritativeAPI } from '../fixtures/migration.js';
import { ETCD, USERS } from '../fixtures/openshift.js';

const NAME = 'ci-ln-7x2k9-worker-a-4kz8q';
const GUARD = { name: 'drain-guard', owner: 'team/guard' };
const SYNC: UserInfo = {
  username: 'system:serviceaccount:openshift-cluster-api:capi-controllers',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:openshift-cluster-api', 'system:authenticated'],
};

type Api = AuthoritativeAPI;

const mapiMachine = (preDrain: Array<{ name: string; owner: string }>, status?: Api, spec?: Api): KubeObject =>
  machineAPICopy(preDrain, {
    name: NAME,
    uid: 'mapi-uid',
    ...(status ? { status } : {}),
    ...(spec ? { spec } : {}),
  });
const capiMachine = (preDrain: Array<{ name: string; owner: string }>): KubeObject =>
  clusterAPICopy(preDrain, { name: NAME, uid: 'capi-uid' });

/** An UPDATE as the webhook's transport hands it to the engine, with the twin it looked up. */
function update(oldObject: KubeObject, object: KubeObject, user: UserInfo, twin?: TwinFact): ReviewInput {
  const [group, version] = String(object['apiVersion']).split('/') as [string, string];
  const meta = object['metadata'] as { name: string; namespace: string };
  return {
    operation: 'UPDATE',
    kind: { group, version, kind: 'Machine' },
    namespace: meta.namespace,
    name: meta.name,
    object,
    oldObject,
    userInfo: user,
    dryRun: false,
    ...(twin ? { context: { twin } } : {}),
  };
}

const found = (object: KubeObject): TwinFact => ({ found: true, object });

/** The synchronizer removes the etcd hook from the Machine API copy; `twinHooks` are the Cluster API copy's. */
function mirrorOnMachineAPI(
  status: Api,
  twinHooks: (typeof GUARD)[],
  o: { user?: UserInfo; spec?: Api; policy?: Policy } = {},
) {
  const input = update(
    mapiMachine([ETCD, GUARD], status, o.spec),
    mapiMachine([GUARD], status, o.spec),
    o.user ?? SYNC,
    found(capiMachine(twinHooks)),
  );
  return evaluate(o.policy ?? DEFAULT_POLICY, input);
}

describe('migration: the synchronizer mirrors a removal onto the non-authoritative copy', () => {
  test('Machine API copy, Cluster API authoritative, hook gone there: allowed, audited as a mirror', () => {
    const d = mirrorOnMachineAPI('ClusterAPI', [GUARD]);
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.notices.map((n) => [n.audit.key, JSON.parse(n.audit.value).route, n.warning]),
      [['hook-mirror-removal', 'mirror', undefined]],
    );
  });

  test('Cluster API copy, Machine API authoritative, hook gone there: allowed', () => {
    const input = update(
      capiMachine([ETCD, GUARD]),
      capiMachine([GUARD]),
      SYNC,
      found(mapiMachine([GUARD], 'MachineAPI')),
    );
    assert.equal(evaluate(DEFAULT_POLICY, input).allowed, true);
  });

  test('Cluster API copy: a {name} still on the Machine API copy is its annotation, not gone: refused', () => {
    const input = update(
      capiMachine([ETCD, GUARD]),
      capiMachine([GUARD]),
      SYNC,
      found(mapiMachine([ETCD, GUARD], 'MachineAPI')),
    );
    assert.equal(evaluate(DEFAULT_POLICY, input).allowed, false);
  });

  test('the hook is still on the authoritative copy: refused as any removal by a non-owner', () => {
    const d = mirrorOnMachineAPI('ClusterAPI', [ETCD, GUARD]);
    assert.equal(d.allowed, false);
    assert.match(d.denials[0]?.message ?? '', /may not remove preDrain hook "EtcdQuorumOperator"/);
  });

  test('the hook stays on the authoritative copy under another owner: not gone, refused', () => {
    assert.equal(mirrorOnMachineAPI('ClusterAPI', [{ name: ETCD.name, owner: 'someone/else' }, GUARD]).allowed, false);
  });

  test('anyone else removing it from the non-authoritative copy is refused, twin or not', () => {
    assert.equal(mirrorOnMachineAPI('ClusterAPI', [GUARD], { user: USERS.alice }).allowed, false);
  });

  test('a removal on the authoritative copy is no mirror: refused', () => {
    assert.equal(mirrorOnMachineAPI('MachineAPI', [GUARD]).allowed, false);
    const onCapi = update(
      capiMachine([ETCD, GUARD]),
      capiMachine([GUARD]),
      SYNC,
      found(mapiMachine([GUARD], 'ClusterAPI')),
    );
    assert.equal(evaluate(DEFAULT_POLICY, onCapi).allowed, false);
  });

  test('Migrating: the side spec.authoritativeAPI names is authoritative', () => {
    assert.equal(mirrorOnMachineAPI('Migrating', [GUARD], { spec: 'ClusterAPI' }).allowed, true);
    assert.equal(mirrorOnMachineAPI('Migrating', [GUARD], { spec: 'MachineAPI' }).allowed, false);
    assert.equal(mirrorOnMachineAPI('Migrating', [GUARD]).allowed, false, 'no spec: no side');
  });

  test('no authoritativeAPI in status (a Default CRD): no side, refused', () => {
    const input = update(mapiMachine([ETCD, GUARD]), mapiMachine([GUARD]), SYNC, found(capiMachine([GUARD])));
    assert.equal(evaluate(DEFAULT_POLICY, input).allowed, false);
  });

  test('a failed or missing twin lookup verifies nothing: the removal gets what any non-owner gets', () => {
    for (const twin of [
      { found: false, reason: 'Timeout', message: 'no answer within 2000 ms' },
      { found: false, reason: 'NotFound', message: 'GET ...: HTTP 404' },
    ] as const) {
      const input = update(mapiMachine([ETCD, GUARD], 'ClusterAPI'), mapiMachine([GUARD], 'ClusterAPI'), SYNC, twin);
      assert.equal(evaluate(DEFAULT_POLICY, input).allowed, false, twin.reason);
    }
    const none = update(mapiMachine([ETCD, GUARD], 'ClusterAPI'), mapiMachine([GUARD], 'ClusterAPI'), SYNC);
    assert.equal(evaluate(DEFAULT_POLICY, none).allowed, false, 'not looked up');
  });

  test('re-owning a hook is never a mirror', () => {
    const input = update(
      mapiMachine([ETCD, GUARD], 'ClusterAPI'),
      mapiMachine([{ name: ETCD.name, owner: 'team/guard' }, GUARD], 'ClusterAPI'),
      SYNC,
      found(capiMachine([GUARD])),
    );
    assert.equal(evaluate(DEFAULT_POLICY, input).allowed, false);
  });

  test('each removed hook on its own: one still on the authoritative copy refuses the request', () => {
    const input = update(
      mapiMachine([ETCD, { name: 'other', owner: 'clusteroperator/etcd' }], 'ClusterAPI'),
      mapiMachine([], 'ClusterAPI'),
      SYNC,
      found(capiMachine([{ name: 'other', owner: 'clusteroperator/etcd' }])),
    );
    const d = evaluate(DEFAULT_POLICY, input);
    assert.equal(d.allowed, false);
    assert.deepEqual(
      d.denials.map((v) => v.hook?.name),
      ['other'],
    );
  });

  test('a Machine outside the migration namespaces is no copy', () => {
    const moved = (o: KubeObject): KubeObject => ({
      ...o,
      metadata: { ...(o['metadata'] as object), namespace: 'elsewhere' },
    });
    const input = update(
      moved(mapiMachine([ETCD, GUARD], 'ClusterAPI')),
      moved(mapiMachine([GUARD], 'ClusterAPI')),
      SYNC,
      found(capiMachine([GUARD])),
    );
    assert.equal(evaluate(DEFAULT_POLICY, input).allowed, false);
  });

  test('the synchronizer and the namespaces come from the policy file', () => {
    const policy = parsePolicy(
      [
        'apiVersion: hookkeeper.io/v1alpha1',
        'kind: Policy',
        'migration:',
        '  synchronizers: [{namespace: sync-ns, name: syncer}]',
      ].join('\n'),
      'policy.yaml',
    );
    assert.deepEqual(policy.migration, {
      synchronizers: [{ namespace: 'sync-ns', name: 'syncer' }],
      machineAPINamespace: 'openshift-machine-api',
      clusterAPINamespace: 'openshift-cluster-api',
    });
    const syncer: UserInfo = { username: 'system:serviceaccount:sync-ns:syncer', groups: [] };
    assert.equal(mirrorOnMachineAPI('ClusterAPI', [GUARD], { policy, user: syncer }).allowed, true);
    assert.equal(mirrorOnMachineAPI('ClusterAPI', [GUARD], { policy }).allowed, false, 'the default one no more');
  });
});

describe('migration: what the transport looks up', () => {
  test("the twin of a synchronizer's removal, on the other API, in the other namespace", () => {
    const input = update(mapiMachine([ETCD], 'ClusterAPI'), mapiMachine([], 'ClusterAPI'), SYNC);
    assert.deepEqual(twinRequest(DEFAULT_POLICY, input), {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Machine',
      resource: 'machines',
      namespaced: true,
      namespace: 'openshift-cluster-api',
      name: NAME,
      key: `cluster.x-k8s.io/v1beta1/Machine/openshift-cluster-api/${NAME}`,
    });
    const capi = update(capiMachine([ETCD]), capiMachine([]), SYNC);
    assert.equal(twinRequest(DEFAULT_POLICY, capi)?.apiVersion, 'machine.openshift.io/v1beta1');
    assert.equal(twinRequest(DEFAULT_POLICY, capi)?.namespace, 'openshift-machine-api');
  });

  test('nothing for anyone else, for a request removing or adding no hook, or for a re-owning', () => {
    assert.equal(twinRequest(DEFAULT_POLICY, update(mapiMachine([ETCD]), mapiMachine([]), USERS.alice)), undefined);
    assert.equal(twinRequest(DEFAULT_POLICY, update(mapiMachine([ETCD]), mapiMachine([ETCD]), SYNC)), undefined);
    // An addition may mirror the authoritative copy's hook, as a removal may mirror its removal.
    assert.notEqual(
      twinRequest(DEFAULT_POLICY, update(mapiMachine([ETCD]), mapiMachine([ETCD, GUARD]), SYNC)),
      undefined,
    );
    const reowned = update(mapiMachine([ETCD]), mapiMachine([{ name: ETCD.name, owner: 'x' }]), SYNC);
    assert.equal(twinRequest(DEFAULT_POLICY, reowned), undefined);
  });

  test('authoritativeAPI: status settles it; Migrating defers to spec; anything else names no side', () => {
    assert.equal(authoritativeSide(mapiMachine([], 'ClusterAPI', 'MachineAPI')), 'ClusterAPI');
    assert.equal(authoritativeSide(mapiMachine([], 'Migrating', 'ClusterAPI')), 'ClusterAPI');
    assert.equal(authoritativeSide(mapiMachine([], undefined, 'ClusterAPI')), undefined);
    assert.equal(authoritativeSide({ status: { authoritativeAPI: 'Elsewhere' } }), undefined);
    assert.equal(authoritativeSide(null), undefined);
  });
});

describe("the synchronizer's additions (squatting aside)", () => {
  // The Machine API copy is not authoritative; the synchronizer copies the etcd hook the Cluster API copy carries.
  const add = (twinHooks: Array<{ name: string; owner: string }>, user = SYNC) =>
    evaluate(
      DEFAULT_POLICY,
      update(
        mapiMachine([GUARD], 'ClusterAPI'),
        mapiMachine([GUARD, ETCD], 'ClusterAPI'),
        user,
        found(capiMachine(twinHooks)),
      ),
    );

  test('a mirror of a hook the authoritative copy carries, with that owner: allowed, audited as mirror', () => {
    const d = add([GUARD, ETCD]);
    assert.equal(d.allowed, true);
    assert.deepEqual(
      d.notices.map((n) => n.audit?.key),
      ['hook-mirror-addition'],
    );
  });

  test('not on the authoritative copy, under another owner there, or by anyone else: a squat, refused', () => {
    assert.equal(add([GUARD]).allowed, false);
    assert.equal(add([GUARD, { name: ETCD.name, owner: 'someone' }]).allowed, false);
    assert.equal(add([GUARD, ETCD], USERS.alice).allowed, false);
  });

  test("native mode's divergence: where the twin decides the squatting check, not where RBAC allows anyway", () => {
    const native = ownerOnlyRemovalRule.native;
    const [mirror] = (native && 'divergences' in native ? (native.divergences?.(DEFAULT_POLICY) ?? []) : []).filter(
      (d) => d.text.includes('CEL cannot look up the other copy'),
    );
    const mirrored = (access: 'allowed' | 'denied'): ReviewInput => {
      const input = update(
        mapiMachine([GUARD], 'ClusterAPI'),
        mapiMachine([GUARD, ETCD], 'ClusterAPI'),
        SYNC,
        found(capiMachine([GUARD, ETCD])),
      );
      const ownership = { granted: new Set<string>(), access: { [ETCD.owner]: access }, grantsKnown: true };
      return { ...input, context: { ...input.context, ownership } };
    };
    assert.equal(mirror?.verdictDiffers?.(mirrored('denied')), true);
    // RBAC lets the synchronizer act for the owner: without the twin too, so native mode allows it as well.
    assert.equal(mirror?.verdictDiffers?.(mirrored('allowed')), false);
  });
});
