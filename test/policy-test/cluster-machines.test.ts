// A PolicyTest's clusterMachines: the cluster's Machines `serve` would list for a quorum hook's removal, stated by a
// case (or the file) and passed to the rules as the quorum fact; checked where the file is read, in hookkeeper's words.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { MAX_QUORUM_MACHINES, QUORUM_ACK_ANNOTATION } from '../../src/core/quorum.js';
import { loadTestFile, type LoadedFile } from '../../src/transports/policy-test/load.js';
import { runFile } from '../../src/transports/policy-test/run.js';

const POLICY = resolve('src/rules/default-policy.yaml');
const NS = 'openshift-machine-api';

function machine(name: string, opts: { hooked?: boolean; deleting?: boolean; ack?: string } = {}): string {
  const annotations = opts.ack === undefined ? '' : `, annotations: {${QUORUM_ACK_ANNOTATION}: '${opts.ack}'}`;
  return (
    `{apiVersion: machine.openshift.io/v1beta1, kind: Machine, metadata: {name: ${name}, namespace: ${NS}` +
    `${opts.deleting ? ", deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [machine.openshift.io]" : ''}` +
    `, labels: {machine.openshift.io/cluster-api-machine-role: master, machine.openshift.io/cluster-api-cluster: c1}` +
    `${annotations}}, spec: {lifecycleHooks: {${opts.hooked === false ? '' : 'preDrain: [{name: EtcdQuorumOperator, owner: clusteroperator/etcd}]'}}}}`
  );
}

async function load(text: string, files: Record<string, string> = {}): Promise<LoadedFile> {
  const cwd = await mkdtemp(join(tmpdir(), 'hk-cluster-machines-'));
  for (const [name, body] of Object.entries(files)) await writeFile(join(cwd, name), body);
  await writeFile(
    join(cwd, 't.yaml'),
    `apiVersion: hookkeeper.io/v1alpha1\nkind: PolicyTest\npolicy: ${POLICY}\n${text}`,
  );
  return loadTestFile('t.yaml', cwd, new Map());
}

/** Break-glass strips the quorum hook from master-1. */
const strip = (ack?: string): string =>
  `    oldObject: ${machine('master-1')}\n    object: ${machine('master-1', { hooked: false, ...(ack === undefined ? {} : { ack }) })}\n` +
  `    identity: {user: sre, groups: [system:masters]}\n`;

describe('clusterMachines: the quorum fact a case states', () => {
  test("a case's clusterMachines decide quorum-protection as serve's list would; without them it is not judged, noted", async () => {
    const loaded = await load(
      `cases:
  - name: refused while master-0 deletes unprotected
${strip()}    clusterMachines:
      - ${machine('master-0', { hooked: false, deleting: true })}
      - ${machine('master-2')}
    expect: {allowed: false, messages: ['while control-plane Machine master-0 of cluster c1 is deleting without it']}
  - name: acknowledged
${strip('master-0')}    clusterMachines: [machines.yaml]
    expect: {allowed: true, warnings: ['quorum acknowledged: EtcdQuorumOperator removed while master-0 is deleting']}
  - name: nothing stated
${strip()}    expect: {allowed: true}
`,
      { 'machines.yaml': machine('master-0', { hooked: false, deleting: true }) },
    );
    assert.deepEqual(loaded.problems, []);
    const result = runFile(loaded);
    assert.deepEqual(
      result.cases.map((c) => [c.name, c.passed, c.failures.map((f) => f.message)]),
      [
        ['refused while master-0 deletes unprotected', true, []],
        ['acknowledged', true, []],
        ['nothing stated', true, []],
      ],
    );
    assert.ok(
      result.cases[2]?.notes.some((n) => n.startsWith('no clusterMachines declared')),
      JSON.stringify(result.cases[2]?.notes),
    );
    assert.ok(!result.cases[0]?.notes.some((n) => n.startsWith('no clusterMachines declared')));
  });

  test("the file's clusterMachines stand for every case that states none", async () => {
    const loaded = await load(`clusterMachines:
  - ${machine('master-0', { hooked: false, deleting: true })}
cases:
  - name: refused by the file's Machines
${strip()}    expect: {allowed: false, messages: ['quorum-acknowledged=master-0 on master-1']}
  - name: the case's own list replaces the file's
${strip()}    clusterMachines: [${machine('master-0')}]
    expect: {allowed: true}
`);
    assert.deepEqual(loaded.problems, []);
    assert.deepEqual(
      runFile(loaded).cases.map((c) => c.failures),
      [[], []],
    );
  });

  test('clusterMachinesUnavailable states a failed list: the removal is refused as serve refuses it (fail closed)', async () => {
    const loaded = await load(`clusterMachinesUnavailable: Timeout
cases:
  - name: the file's failed list refuses break-glass
${strip()}    expect: {allowed: false, messages: ['could not be listed (Timeout: ', '); retry the request']}
  - name: the case's own list replaces the file's failure
${strip()}    clusterMachines: []
    expect: {allowed: true}
  - name: the case's failure replaces the file's
${strip()}    clusterMachinesUnavailable: TooMany
    expect: {allowed: false, messages: ['could not be listed (TooMany: ']}
`);
    assert.deepEqual(loaded.problems, []);
    const result = runFile(loaded);
    assert.deepEqual(
      result.cases.map((c) => [c.name, c.failures.map((f) => f.message), c.notes]),
      [
        ["the file's failed list refuses break-glass", [], []],
        ["the case's own list replaces the file's failure", [], []],
        ["the case's failure replaces the file's", [], []],
      ],
    );
  });

  test('a list and its failure stated in one place, or an unknown reason: each a problem', async () => {
    const both = 'states that the list failed beside clusterMachines, the list it found: state one of them';
    const loaded = await load(`clusterMachines: []
clusterMachinesUnavailable: Error
cases:
  - name: a
${strip()}    clusterMachines: []
    clusterMachinesUnavailable: Forbidden
    expect: {allowed: true}
`);
    assert.deepEqual(
      loaded.problems.map((p) => [p.path, p.message]),
      [
        ['clusterMachinesUnavailable', both],
        ['cases[0].clusterMachinesUnavailable', 'must be equal to one of the allowed values: Timeout, Error, TooMany'],
        ['cases[0].clusterMachinesUnavailable', both],
      ],
    );
  });

  test('not a Machine, another API than the case, a name twice, more than a lookup lists: each a problem', async () => {
    const many = Array.from({ length: MAX_QUORUM_MACHINES + 1 }, (_, i) => `      - ${machine(`m-${i}`)}`).join('\n');
    const loaded = await load(`cases:
  - name: a
${strip()}    clusterMachines:
      - {apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: ${NS}}}
      - {apiVersion: cluster.x-k8s.io/v1beta1, kind: Machine, metadata: {name: y, namespace: ${NS}}}
      - ${machine('master-0')}
      - ${machine('master-0', { deleting: true })}
      - missing.yaml
      - {apiVersion: machine.openshift.io/v1beta1, kind: Machine, metadata: {name: z}}
    expect: {allowed: true}
  - name: b
${strip()}    clusterMachines:
${many}
    expect: {allowed: true}
`);
    assert.deepEqual(
      loaded.problems.map((p) => [p.path, p.message]),
      [
        [
          'cases[0].clusterMachines[0]',
          'the object is a v1 ConfigMap, not a Machine (machine.openshift.io or cluster.x-k8s.io)',
        ],
        [
          'cases[0].clusterMachines[1]',
          "the object is a cluster.x-k8s.io Machine; the case's object is a machine.openshift.io one, and a lookup lists that API's Machines only",
        ],
        [
          'cases[0].clusterMachines[3]',
          `Machine ${NS}/master-0 is stated twice (clusterMachines[2]): a cluster holds one`,
        ],
        ['cases[0].clusterMachines[4]', 'cannot read missing.yaml: no such file or directory'],
        [
          'cases[0].clusterMachines[5]',
          'the object has no metadata.namespace or metadata.name: a listed Machine has both',
        ],
        [
          'cases[1].clusterMachines',
          `states ${MAX_QUORUM_MACHINES + 1} Machines, more than the ${MAX_QUORUM_MACHINES} one lookup lists (serve refuses such a removal as TooMany); state at most ${MAX_QUORUM_MACHINES}`,
        ],
      ],
    );
    assert.deepEqual(loaded.cases, []);
  });
});
