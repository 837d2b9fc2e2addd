// Rule quorum-protection: a quorum hook's removal from a control-plane Machine, by anyone but its owner (break-glass
// included), is refused while another control-plane Machine of the same cluster is deleting without it, unless the
// request names that Machine in its acknowledgment; a lookup that failed refuses; the owner's removal always passes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import { divergences } from '../../src/compilers/native/notes.js';
import type { Policy } from '../../src/core/policy.js';
import { QUORUM_ACK_ANNOTATION, quorumLookup, selectorString } from '../../src/core/quorum.js';
import type { KubeObject, Ownership, QuorumFact, ReviewInput, UserInfo } from '../../src/core/types.js';
import { ETCD, USERS } from '../fixtures/openshift.js';
import { ownersToCheck } from '../../src/rules/owner-only-removal/owners-to-check.js';

const NS = 'openshift-machine-api';
const ROLE = 'machine.openshift.io/cluster-api-machine-role';
const CLUSTER = 'machine.openshift.io/cluster-api-cluster';
const GUARD = { name: 'drain-guard', owner: 'team/guard' };

interface MachineOptions {
  role?: string;
  cluster?: string | null;
  deleting?: boolean;
  hooks?: ReadonlyArray<{ name: string; owner: string }>;
  ack?: string;
}

function machine(name: string, o: MachineOptions = {}): KubeObject {
  const labels: Record<string, string> = { [ROLE]: o.role ?? 'master' };
  if (o.cluster !== null) labels[CLUSTER] = o.cluster ?? 'ci-ln-7x2k9';
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      namespace: NS,
      labels,
      ...(o.ack !== undefined ? { annotations: { [QUORUM_ACK_ANNOTATION]: o.ack } } : {}),
      ...(o.deleting
        ? { deletionTimestamp: '2026-12-05T08:00:00Z', finalizers: ['machine.machine.openshift.io'] }
        : {}),
    },
    spec: { lifecycleHooks: { preDrain: [...(o.hooks ?? [ETCD])] } },
  };
}

const found = (...machines: KubeObject[]): QuorumFact => ({ found: true, machines });

/** An UPDATE of machine `name`: `before` stored, `after` sent, by `user`, with the facts serve would gather. */
function update(
  before: KubeObject,
  after: KubeObject,
  user: UserInfo,
  quorum?: QuorumFact,
  ownership?: Ownership,
): ReviewInput {
  const meta = before['metadata'] as { name: string };
  return {
    operation: 'UPDATE',
    kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
    namespace: NS,
    name: meta.name,
    object: after,
    oldObject: before,
    userInfo: user,
    dryRun: false,
    ...(quorum || ownership ? { context: { ...(quorum ? { quorum } : {}), ...(ownership ? { ownership } : {}) } } : {}),
  };
}

/** m-0 deleting after its owner removed the etcd hook; m-1 and m-2 still carry it. */
const CLUSTER_NOW = found(
  machine('m-0', { deleting: true, hooks: [] }),
  machine('m-1'),
  machine('m-2'),
  machine('w-0', { role: 'worker', deleting: true, hooks: [] }),
);

const quorumDenials = (policy: Policy, input: ReviewInput) =>
  evaluate(policy, input).denials.filter((v) => v.rule === 'quorum-protection');

describe('quorum-protection: a second control-plane Machine is not stripped of its quorum hook', () => {
  test('break-glass removing the etcd hook while another control-plane Machine deletes without it: refused', () => {
    const d = evaluate(DEFAULT_POLICY, update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.admin, CLUSTER_NOW));
    assert.equal(d.allowed, false);
    const [v, ...rest] = d.denials.filter((x) => x.rule === 'quorum-protection');
    assert.equal(rest.length, 0);
    assert.ok(v);
    assert.match(v.message, /m-0/);
    assert.match(v.message, /ci-ln-7x2k9/);
    assert.match(v.message, /hookkeeper\.io\/quorum-acknowledged/);
    assert.doesNotMatch(v.message, /w-0|m-2/);
    assert.equal(v.path, 'spec.lifecycleHooks.preDrain[0]');
    assert.match(v.message, /^spec\.lifecycleHooks\.preDrain\[0\]: Forbidden: /);
  });

  test('acknowledged by naming the deleting Machine: allowed, warned and audited with its name', () => {
    const d = evaluate(
      DEFAULT_POLICY,
      update(machine('m-1'), machine('m-1', { hooks: [], ack: 'm-0' }), USERS.admin, CLUSTER_NOW),
    );
    assert.equal(d.allowed, true);
    const n = d.notices.find((x) => x.rule === 'quorum-protection');
    assert.ok(n, 'a notice of the acknowledgment');
    assert.match(n.warning ?? '', /m-0/);
    assert.equal(n.audit.key, 'quorum-acknowledged-hook-removal');
    assert.deepEqual(JSON.parse(n.audit.value), {
      quorum: 'etcd-quorum',
      cluster: 'ci-ln-7x2k9',
      hook: 'EtcdQuorumOperator',
      user: USERS.admin.username,
      acknowledged: ['m-0'],
    });
  });

  test('an acknowledgment naming another Machine, or only some of them, does not cover the deleting one', () => {
    const two = found(machine('m-0', { deleting: true, hooks: [] }), machine('m-3', { deleting: true, hooks: [] }));
    for (const ack of ['m-2', 'm-3', 'm-0x', ' ', ''])
      assert.equal(
        evaluate(DEFAULT_POLICY, update(machine('m-1'), machine('m-1', { hooks: [], ack }), USERS.admin, two)).allowed,
        false,
        ack,
      );
    const [v] = quorumDenials(
      DEFAULT_POLICY,
      update(machine('m-1'), machine('m-1', { hooks: [], ack: 'm-3' }), USERS.admin, two),
    );
    assert.match(v?.message ?? '', /m-0/);
    assert.doesNotMatch(v?.message ?? '', /"m-3"/);
    assert.equal(
      evaluate(DEFAULT_POLICY, update(machine('m-1'), machine('m-1', { hooks: [], ack: 'm-3, m-0' }), USERS.admin, two))
        .allowed,
      true,
    );
  });

  test("the owner's removal passes: the etcd operator removes its hook only once the member is gone", () => {
    const d = evaluate(
      DEFAULT_POLICY,
      update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.etcdOperator, CLUSTER_NOW),
    );
    assert.deepEqual(d.denials, []);
    assert.equal(
      d.notices.some((n) => n.rule === 'quorum-protection'),
      false,
    );
  });

  test('a user RBAC lets act for the owner passes; wildcard rights do not', () => {
    const grant = (access: 'allowed' | 'wildcard'): Ownership => ({
      granted: new Set(['clusteroperator/etcd']),
      access: { 'clusteroperator/etcd': access },
      grantsKnown: true,
    });
    const policy: Policy = { ...DEFAULT_POLICY, wildcardGrants: 'warn' };
    const by = (access: 'allowed' | 'wildcard') =>
      quorumDenials(
        policy,
        update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.alice, CLUSTER_NOW, grant(access)),
      ).length;
    assert.equal(by('allowed'), 0);
    assert.equal(by('wildcard'), 1);
  });

  test('the transport asks RBAC about the owner whatever owner-only-removal says, break-glass included', () => {
    const removal = (user: UserInfo) => update(machine('m-1'), machine('m-1', { hooks: [] }), user, CLUSTER_NOW);
    for (const enforcement of ['deny', 'warn', 'off'] as const) {
      const policy: Policy = {
        ...DEFAULT_POLICY,
        enforcement: { ...DEFAULT_POLICY.enforcement, 'owner-only-removal': enforcement },
      };
      // The answer decides quorum-protection: an owner RBAC lets act for it removes its hook past a deleting peer.
      assert.deepEqual(ownersToCheck(policy, removal(USERS.alice)), [ETCD.owner], enforcement);
      assert.deepEqual(ownersToCheck(policy, removal(USERS.admin)), [ETCD.owner], enforcement);
    }
    // The registered owner needs no answer; with the rule off, nobody is asked.
    const etcdOperator = { username: 'system:serviceaccount:openshift-etcd-operator:etcd-operator', groups: [] };
    assert.deepEqual(ownersToCheck(DEFAULT_POLICY, removal(etcdOperator)), []);
    const off: Policy = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'quorum-protection': 'off', 'owner-only-removal': 'off' },
    };
    assert.deepEqual(ownersToCheck(off, removal(USERS.alice)), []);
  });

  test('nothing to protect: the other deleting Machines carry the hook, are workers, or another cluster', () => {
    const calm = found(
      machine('m-0', { deleting: true }),
      machine('w-0', { role: 'worker', deleting: true, hooks: [] }),
      machine('o-0', { cluster: 'other', deleting: true, hooks: [] }),
      machine('n-0', { cluster: null, deleting: true, hooks: [] }),
      machine('m-2', { hooks: [] }),
    );
    assert.deepEqual(
      quorumDenials(DEFAULT_POLICY, update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.admin, calm)),
      [],
    );
  });

  test('the Machine itself deleting is not "another"', () => {
    const self = found(machine('m-1', { deleting: true, hooks: [] }));
    const input = update(
      machine('m-1', { deleting: true }),
      machine('m-1', { deleting: true, hooks: [] }),
      USERS.admin,
      self,
    );
    assert.deepEqual(quorumDenials(DEFAULT_POLICY, input), []);
  });

  test('Machines without the cluster label are one cluster per namespace', () => {
    const fact = found(machine('m-0', { cluster: null, deleting: true, hooks: [] }));
    const input = update(
      machine('m-1', { cluster: null }),
      machine('m-1', { cluster: null, hooks: [] }),
      USERS.admin,
      fact,
    );
    assert.equal(quorumDenials(DEFAULT_POLICY, input).length, 1);
  });

  test('a lookup that failed refuses, saying why and how to retry', () => {
    for (const reason of ['Timeout', 'Error', 'TooMany'] as const) {
      const fact: QuorumFact = { found: false, reason, message: `list: ${reason}` };
      const [v, ...rest] = quorumDenials(
        DEFAULT_POLICY,
        update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.admin, fact),
      );
      assert.equal(rest.length, 0);
      assert.match(v?.message ?? '', new RegExp(`list: ${reason}`));
      assert.match(v?.message ?? '', /retry/);
    }
  });

  test('a failed lookup does not refuse what removes no quorum hook', () => {
    const fact: QuorumFact = { found: false, reason: 'Timeout', message: 'no answer' };
    const keeps = update(
      machine('m-1', { hooks: [ETCD, GUARD] }),
      machine('m-1', { hooks: [ETCD] }),
      USERS.admin,
      fact,
    );
    assert.deepEqual(quorumDenials(DEFAULT_POLICY, keeps), []);
  });

  test('not looked up (no cluster: --no-cluster, hookkeeper test): not judged', () => {
    assert.deepEqual(
      quorumDenials(DEFAULT_POLICY, update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.admin)),
      [],
    );
  });

  test('enforcement warn: the refusal becomes a warning', () => {
    const policy: Policy = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'quorum-protection': 'warn' },
    };
    const d = evaluate(policy, update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.admin, CLUSTER_NOW));
    assert.equal(d.allowed, true);
    assert.equal(d.warnings.filter((w) => w.rule === 'quorum-protection').length, 1);
  });
});

describe("native mode's declared divergence", () => {
  test('covers every quorum hook removal the webhook may refuse, and nothing else', () => {
    const [d, ...more] = divergences(DEFAULT_POLICY).filter((x) => x.rule === 'quorum-protection');
    assert.equal(more.length, 0);
    assert.ok(d?.verdictDiffers);
    assert.equal(d.verdictDiffers(update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.admin)), true);
    assert.equal(
      d.verdictDiffers(
        update(machine('w-1', { role: 'worker' }), machine('w-1', { role: 'worker', hooks: [] }), USERS.admin),
      ),
      false,
    );
    assert.equal(
      d.verdictDiffers(update(machine('m-1', { hooks: [ETCD, GUARD] }), machine('m-1'), USERS.admin)),
      false,
    );
    const noQuorum: Policy = { ...DEFAULT_POLICY, quorumHooks: [] };
    assert.deepEqual(
      divergences(noQuorum).filter((x) => x.rule === 'quorum-protection'),
      [],
    );
  });
});

describe('quorumLookup: which reviews list the cluster, and how', () => {
  test('a quorum-hook removal lists the namespace by the match selector and the cluster label', () => {
    assert.deepEqual(quorumLookup(DEFAULT_POLICY, update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.admin)), {
      path: '/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines',
      labelSelector:
        'machine.openshift.io/cluster-api-machine-role in (master,arbiter),machine.openshift.io/cluster-api-cluster=ci-ln-7x2k9',
      limit: 100,
      key: 'etcd-quorum/openshift-machine-api/ci-ln-7x2k9',
    });
  });

  test("every selector operator in the API server's query syntax", () => {
    assert.deepEqual(
      selectorString({
        matchLabels: { tier: 'cp' },
        matchExpressions: [
          { key: 'a', operator: 'In', values: ['x', 'y'] },
          { key: 'b', operator: 'NotIn', values: ['z'] },
          { key: 'c', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist' },
        ],
      }),
      ['tier=cp', 'a in (x,y)', 'b notin (z)', 'c', '!d'],
    );
    assert.deepEqual(selectorString(undefined), []);
  });

  test('a Machine without the cluster label lists those without it', () => {
    const input = update(machine('m-1', { cluster: null }), machine('m-1', { cluster: null, hooks: [] }), USERS.admin);
    assert.match(
      quorumLookup(DEFAULT_POLICY, input)?.labelSelector ?? '',
      /,!machine\.openshift\.io\/cluster-api-cluster$/,
    );
  });

  test('no list for the owner, a worker, a kept hook, a CREATE, or the rule off', () => {
    const strip = (o: MachineOptions = {}) =>
      update(machine('m-1', o), machine('m-1', { ...o, hooks: [] }), USERS.admin);
    assert.equal(
      quorumLookup(DEFAULT_POLICY, update(machine('m-1'), machine('m-1', { hooks: [] }), USERS.etcdOperator)),
      undefined,
    );
    assert.equal(quorumLookup(DEFAULT_POLICY, strip({ role: 'worker' })), undefined);
    assert.equal(
      quorumLookup(DEFAULT_POLICY, update(machine('m-1', { hooks: [ETCD, GUARD] }), machine('m-1'), USERS.admin)),
      undefined,
    );
    assert.equal(
      quorumLookup(DEFAULT_POLICY, {
        ...update(machine('m-1'), machine('m-1'), USERS.admin),
        operation: 'CREATE',
        oldObject: null,
      }),
      undefined,
    );
    const off: Policy = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'quorum-protection': 'off' },
    };
    assert.equal(quorumLookup(off, strip()), undefined);
  });
});

describe('quorum-protection under the Cluster API profile', () => {
  const policy = parsePolicy(
    readFileSync(new URL('../../webhook-config/components/cluster-api/policy.yaml', import.meta.url), 'utf8'),
    'cluster-api/policy.yaml',
  );
  const KCP = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup';
  const capi = (name: string, o: { deleting?: boolean; hook?: boolean } = {}): KubeObject => ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Machine',
    metadata: {
      name,
      namespace: 'default',
      labels: { 'cluster.x-k8s.io/control-plane': '', 'cluster.x-k8s.io/cluster-name': 'prod' },
      annotations: o.hook === false ? {} : { [KCP]: '' },
      ...(o.deleting ? { deletionTimestamp: '2026-12-05T08:00:00Z', finalizers: ['machine.cluster.x-k8s.io'] } : {}),
    },
    spec: {
      clusterName: 'prod',
      bootstrap: { dataSecretName: 'b' },
      infrastructureRef: { kind: 'X', name: 'x', apiGroup: 'x.io' },
    },
  });
  const kcpManager: UserInfo = {
    username: 'system:serviceaccount:capi-kubeadm-control-plane-system:capi-kubeadm-control-plane-manager',
    groups: ['system:serviceaccounts', 'system:authenticated'],
  };
  const input = (user: UserInfo): ReviewInput => ({
    operation: 'UPDATE',
    kind: { group: 'cluster.x-k8s.io', version: 'v1beta2', kind: 'Machine' },
    namespace: 'default',
    name: 'cp-1',
    object: capi('cp-1', { hook: false }),
    oldObject: capi('cp-1'),
    userInfo: user,
    dryRun: false,
    context: { quorum: found(capi('cp-0', { deleting: true, hook: false }), capi('cp-2')) },
  });

  test("break-glass stripping kcp-cleanup while cp-0 deletes without it is refused; KCP's own removal is not", () => {
    const [v] = quorumDenials(policy, input(USERS.admin));
    assert.match(v?.message ?? '', /cp-0/);
    assert.match(v?.message ?? '', /prod/);
    assert.deepEqual(quorumDenials(policy, input(kcpManager)), []);
  });

  test('the lookup lists cluster.x-k8s.io Machines of the cluster', () => {
    const { context: _, ...bare } = input(USERS.admin);
    assert.deepEqual(quorumLookup(policy, bare), {
      path: '/apis/cluster.x-k8s.io/v1beta2/namespaces/default/machines',
      labelSelector: 'cluster.x-k8s.io/control-plane,cluster.x-k8s.io/cluster-name=prod',
      limit: 100,
      key: 'control-plane-quorum/default/prod',
    });
  });
});
