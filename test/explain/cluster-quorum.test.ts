// `explain` live: a control-plane Machine's quorum standing from the Machines of its namespace, listed through the
// lister explain already holds (RBAC comes through it too); a list that fails leaves the standing unknown.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { explainMachine } from '../../src/core/explain/explain.js';
import type { KubeObject } from '../../src/core/types.js';
import { gatherFacts } from '../../src/transports/explain/from-cluster.js';
import { renderText } from '../../src/transports/explain/text-output.js';
import type { ClusterAccess } from '../../src/infrastructure/kube/api-requests.js';
import { resourceName, type Lister } from '../../src/infrastructure/kube/types.js';
import { ETCD, machine } from '../fixtures/openshift.js';

const DELETED = '2026-12-05T08:00:00Z';
const MACHINES = [
  machine({ name: 'master-0', deletionTimestamp: DELETED }),
  machine({ name: 'master-1', preDrain: [ETCD] }),
  machine({ name: 'master-2', deletionTimestamp: DELETED }),
  machine({ name: 'worker-0', role: 'worker', deletionTimestamp: DELETED }),
];

/** No GET answers (the Node and ClusterOperator facts come out unknown): only the lister is asked. */
const ACCESS: ClusterAccess = {
  server: 'https://127.0.0.1:1',
  requestOptions: () => Promise.reject(new Error('no cluster in this test')),
  proxied: false,
  compress: false,
};

function lister(machines: () => KubeObject[], asked: string[]): Lister {
  return {
    async *list(r, namespace) {
      asked.push(`${resourceName(r)}/${r.version} ${namespace ?? '*'}`);
      yield r.plural === 'machines' ? machines() : [];
    },
  };
}

async function explainLive(name: string, machines: () => KubeObject[], asked: string[] = []) {
  const object = MACHINES.find((m) => (m['metadata'] as { name: string }).name === name) ?? {};
  const deps = { access: ACCESS, lister: lister(machines, asked), serviceAccountExists: async () => true };
  const { facts } = await gatherFacts(deps, DEFAULT_POLICY, object, Date.parse('2026-12-05T09:00:00Z'));
  return explainMachine({ object, policy: DEFAULT_POLICY, facts });
}

describe('explain live: quorum standing', () => {
  test('the Machines of its namespace, listed at its version: two deleting without the etcd hook are at risk', async () => {
    const asked: string[] = [];
    const x = await explainLive('master-1', () => MACHINES, asked);
    assert.ok(asked.includes('machines.machine.openshift.io/v1beta1 openshift-machine-api'), asked.join(', '));
    assert.equal(x.quorum?.state, 'at-risk');
    assert.deepEqual(x.quorum.unprotectedDeleting, ['master-0', 'master-2']);
    assert.equal(
      x.quorum.detail,
      'control-plane Machines master-0 and master-2 of cluster ci-ln-7x2k9 are deleting without quorum protection (EtcdQuorumOperator): their etcd members can leave together and lose quorum',
    );
    assert.match(renderText(x), /\nQuorum \(etcd-quorum\): AT RISK: control-plane Machines master-0 and master-2 /);
  });

  test('a list that fails: unknown, with the reason; a worker lists nothing for it', async () => {
    const x = await explainLive('master-0', () => {
      throw new Error('machines is forbidden');
    });
    assert.equal(x.quorum?.state, 'unknown');
    assert.match(
      x.quorum.detail,
      /^cannot list the Machines of namespace openshift-machine-api: .*machines is forbidden/,
    );
    const asked: string[] = [];
    const worker = await explainLive('worker-0', () => MACHINES, asked);
    assert.equal(worker.quorum, undefined);
    assert.ok(!asked.some((a) => a.startsWith('machines.')), asked.join(', '));
  });
});
