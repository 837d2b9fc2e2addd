// Quorum groups: which control-plane Machines a quorum hook sees, how they group into clusters, and when a cluster
// has Machines deleting without the hook (two or more: the state the audit, explain and the metrics name).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { AppError } from '../../src/errors.js';
import { memberOf, quorumHookOf, unprotectedClusters } from '../../src/core/quorum.js';
import type { KubeObject } from '../../src/core/types.js';

const MAPI = { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' };
const ROLE = 'machine.openshift.io/cluster-api-machine-role';
const CLUSTER = 'machine.openshift.io/cluster-api-cluster';

function machine(
  name: string,
  opts: { role?: string; cluster?: string; deleting?: boolean; hook?: string; ns?: string } = {},
): KubeObject {
  const labels: Record<string, string> = {};
  if (opts.role !== undefined) labels[ROLE] = opts.role;
  if (opts.cluster !== undefined) labels[CLUSTER] = opts.cluster;
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      namespace: opts.ns ?? 'openshift-machine-api',
      labels,
      ...(opts.deleting ? { deletionTimestamp: '2026-12-05T08:00:00Z' } : {}),
    },
    spec: {
      lifecycleHooks: opts.hook ? { preDrain: [{ name: opts.hook, owner: 'clusteroperator/etcd' }] } : {},
    },
  };
}

const clusters = (...objects: KubeObject[]) =>
  unprotectedClusters(
    objects.flatMap((o) => {
      const q = quorumHookOf(DEFAULT_POLICY, MAPI, o);
      return q ? [{ quorum: q.name, member: memberOf(q, MAPI, o) }] : [];
    }),
  );

describe('quorum groups', () => {
  test('control-plane Machines of one cluster deleting without the etcd hook are one cluster', () => {
    assert.deepEqual(
      clusters(
        machine('m-2', { role: 'master', cluster: 'c1', deleting: true }),
        machine('m-0', { role: 'master', cluster: 'c1', deleting: true }),
        machine('m-1', { role: 'master', cluster: 'c1', deleting: true, hook: 'EtcdQuorumOperator' }),
      ),
      [{ quorum: 'etcd-quorum', namespace: 'openshift-machine-api', cluster: 'c1', machines: ['m-0', 'm-2'] }],
    );
  });

  test('a protected deletion, workers, standing Machines and other namespaces are left out; clusters apart', () => {
    assert.deepEqual(
      clusters(
        machine('m-0', { role: 'master', cluster: 'c1', deleting: true }),
        machine('m-1', { role: 'master', cluster: 'c1', deleting: true, hook: 'EtcdQuorumOperator' }),
        machine('m-2', { role: 'master', cluster: 'c1' }),
        machine('w-0', { role: 'worker', cluster: 'c1', deleting: true }),
        machine('m-3', { role: 'master', cluster: 'c2', deleting: true }),
        machine('m-4', { role: 'master', deleting: true }),
        machine('m-5', { role: 'master', cluster: 'c1', deleting: true, ns: 'elsewhere' }),
      ).map((c) => [c.namespace, c.cluster, c.machines]),
      [
        ['openshift-machine-api', '', ['m-4']],
        ['openshift-machine-api', 'c1', ['m-0']],
        ['openshift-machine-api', 'c2', ['m-3']],
      ],
    );
  });

  test('another hook of another name protects nothing; an arbiter counts as control plane', () => {
    assert.deepEqual(
      clusters(
        machine('a-0', { role: 'arbiter', cluster: 'c1', deleting: true, hook: 'SomethingElse' }),
        machine('m-0', { role: 'master', cluster: 'c1', deleting: true }),
      ).map((b) => b.machines),
      [['a-0', 'm-0']],
    );
  });
});

describe('quorumHooks in a policy file', () => {
  const problems = (text: string): string[] => {
    try {
      parsePolicy(`apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n${text}`, 'policy.yaml');
    } catch (err) {
      assert.ok(err instanceof AppError);
      return (err.problems ?? []).map((p) => `${p.path}: ${p.message}`);
    }
    return [];
  };
  const entry = (name: string, kind: string, hook: string) =>
    `  - name: ${name}\n    match: {kinds: [{group: ${kind}}]}\n    stage: preTerminate\n    hooks: ["${hook}"]\n    clusterLabel: cluster.x-k8s.io/cluster-name\n`;

  test('a Machine kind, hook names as the naming rule has them, one name each', () => {
    assert.deepEqual(problems(`quorumHooks:\n${entry('q', 'cluster.x-k8s.io, kind: Machine', 'kcp-cleanup')}`), []);
    assert.deepEqual(
      problems(
        `quorumHooks:\n${entry('q', 'cluster.x-k8s.io, kind: MachineSet', 'kcp-cleanup')}${entry('q', 'cluster.x-k8s.io, kind: Machine', 'x')}`,
      ),
      [
        'quorumHooks[0].match.kinds[0]: a quorum hook protects Machines, not "cluster.x-k8s.io/MachineSet": did you mean cluster.x-k8s.io/Machine? (kinds: machine.openshift.io/Machine, cluster.x-k8s.io/Machine)',
        'quorumHooks[1].name: duplicate quorum hook name q',
        'quorumHooks[1].hooks[0]: Invalid value: "x": quorumHooks[1].hooks[0] in body should be at least 3 chars long',
      ],
    );
  });
});
