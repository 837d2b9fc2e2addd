// `hookkeeper explain` offline (-f: a saved Machine, a must-gather list) with injected streams: the text a person
// reads, -o json against its schema, -o yaml, picking one Machine among several, and every usage error's exit code.
// The live path (a real API server, the kubectl plugin) is in test/e2e/explain.test.ts.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import type { MachineExplanation } from '../../src/core/explain/model.js';
import { MACHINE_EXPLANATION_SCHEMA } from '../../src/transports/explain/output-schema.js';
import { cli } from '../helpers/cli.js';

const CAPI = 'test/fixtures/explain/capi-deleting.yaml';
const DUMP = 'test/fixtures/explain/mapi-dump.yaml';
const QUORUM = 'test/fixtures/explain/mapi-quorum.yaml';
const validate = new Ajv({ strict: true, allErrors: true }).compile(MACHINE_EXPLANATION_SCHEMA);

function valid(x: unknown): MachineExplanation {
  assert.ok(validate(x), JSON.stringify(validate.errors, null, 2));
  return x as MachineExplanation;
}

describe('hookkeeper explain -f', () => {
  test("object data is printed, never obeyed: a field's terminal escapes and bidi controls are shown escaped", async () => {
    const fixture = await readFile(CAPI, 'utf8');
    // A node name that clears the line and rewrites it, and a condition message that reverses what follows.
    const hostile = fixture
      .replace('nodeRef: {name: cp-0-node}', 'nodeRef: {name: "cp-0-node\\e[2K\\rall clear"}')
      .replace('(hooks: volume-backup)', '(hooks: volume-backup)\\u202e\\u009b31m');
    assert.notEqual(hostile, fixture);
    const r = await cli(['explain', '-f', '-'], { stdin: hostile });
    assert.equal(r.code, 0, r.stderr);
    // eslint-disable-next-line no-control-regex -- the characters the output must not carry
    assert.doesNotMatch(r.stdout, /[\u001b\r\u009b\u202e]/);
    assert.match(r.stdout, /cp-0-node\\u001b\[2K\\u000dall clear/);
    // -o json carries the data as it is (JSON escapes it), for programs.
    const json = JSON.parse((await cli(['explain', '-f', '-', '-o', 'json'], { stdin: hostile })).stdout) as unknown;
    assert.match(JSON.stringify(json), /cp-0-node\\u001b\[2K\\rall clear/);
  });

  test('a Cluster API Machine: where it waits and since when, each hook, the command; exit 0', async () => {
    const r = await cli(['explain', '-f', CAPI]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.deepEqual(lines.slice(0, 9), [
      'Machine machines.cluster.x-k8s.io/cp-0 -n capi-system (cluster.x-k8s.io/v1beta2, from a file)',
      'deleting since 2026-11-28T10:00:00Z; waits at preDrain (condition) since 2026-11-28T10:00:05Z; 1 hook(s) hold it, owner(s) "team/storage" must act',
      '',
      'Deletion:',
      '  deleting since 2026-11-28T10:00:00Z',
      '  waits at: preDrain (condition: status.conditions[type=Deleting] reason WaitingForPreDrainHook: Waiting for pre-drain hooks to succeed (hooks: volume-backup))',
      '  waiting since 2026-11-28T10:00:05Z (field: status.deletion.waitForPreDrainHookStartTime)',
      '  status.deletion.waitForPreDrainHookStartTime: 2026-11-28T10:00:05Z',
      '  condition status.conditions[type=Deleting]: True WaitingForPreDrainHook: Waiting for pre-drain hooks to succeed (hooks: volume-backup)',
    ]);
    assert.ok(lines.includes('Node: cp-0-node: unknown (offline (-f): not read from a cluster)'));
    assert.ok(lines.includes('  preDrain hook "volume-backup" owned by "team/storage": holds the deletion now'));
    assert.ok(
      lines.includes(
        `      kubectl patch machines.cluster.x-k8s.io/cp-0 -n capi-system --type=json -p '[{"op":"test","path":"/metadata/annotations/pre-drain.delete.hook.machine.cluster.x-k8s.io~1volume-backup","value":"team/storage"},{"op":"remove","path":"/metadata/annotations/pre-drain.delete.hook.machine.cluster.x-k8s.io~1volume-backup"}]'`,
      ),
      r.stdout,
    );
    assert.ok(
      lines.includes('  preTerminate hook "kcp-cleanup" owned by (no owner): will hold the deletion at its stage'),
    );
    assert.equal(r.stderr, '');
  });

  test('a control-plane Machine whose cluster has two deleting without the etcd hook: quorum at risk, from the files', async () => {
    const AT_RISK =
      'Quorum (etcd-quorum): AT RISK: control-plane Machines ci-ln-7x2k9-master-0 and ci-ln-7x2k9-master-2 of cluster ci-ln-7x2k9 are deleting without quorum protection (EtcdQuorumOperator): their etcd members can leave together and lose quorum (from the Machines in the files)';
    // The protected Machine that is not deleting names its cluster's state as well as the two that are.
    for (const name of ['ci-ln-7x2k9-master-0', 'ci-ln-7x2k9-master-1']) {
      const r = await cli(['explain', '-f', QUORUM, 'machine', name]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split('\n');
      assert.ok(lines.includes(AT_RISK), r.stdout);
      assert.ok(
        lines.some((l) =>
          l.startsWith('  what to do: a deleting Machine takes no new hook, so nothing holds these deletions'),
        ),
        r.stdout,
      );
      assert.match(
        lines[1] ?? '',
        /; QUORUM AT RISK: 2 control-plane Machines of cluster ci-ln-7x2k9 deleting without EtcdQuorumOperator$/,
      );
    }
    const json = valid(
      JSON.parse((await cli(['explain', '-f', QUORUM, 'machine', 'ci-ln-7x2k9-master-1', '-o', 'json'])).stdout),
    );
    assert.deepEqual(
      { ...json.quorum, detail: undefined, fix: undefined },
      {
        name: 'etcd-quorum',
        hooks: ['EtcdQuorumOperator'],
        stage: 'preDrain',
        namespace: 'openshift-machine-api',
        cluster: 'ci-ln-7x2k9',
        protected: true,
        state: 'at-risk',
        unprotectedDeleting: ['ci-ln-7x2k9-master-0', 'ci-ln-7x2k9-master-2'],
        detail: undefined,
        fix: undefined,
      },
    );
    // A worker is no member: no quorum standing at all.
    const worker = valid(
      JSON.parse((await cli(['explain', '-f', QUORUM, 'machine', 'ci-ln-7x2k9-worker-0', '-o', 'json'])).stdout),
    );
    assert.equal(worker.quorum, undefined);
  });

  test('one control-plane Machine deleting without the etcd hook is not a quorum at risk', async () => {
    const r = await cli(['explain', '-f', DUMP, 'machine', 'master-0']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.stdout
        .split('\n')
        .includes(
          'Quorum (etcd-quorum): clear: no control-plane Machine of namespace openshift-machine-api is deleting without EtcdQuorumOperator (from the Machines in the files)',
        ),
      r.stdout,
    );
  });

  test('-o json follows the published schema; -o yaml is the same value', async () => {
    const json = valid(JSON.parse((await cli(['explain', '-f', CAPI, '-o', 'json'])).stdout));
    assert.equal(json.source, 'file');
    assert.equal(validate({ ...json, extra: true }), false, 'the schema is closed: a field added must be added to it');
    assert.equal(json.deletion.waitingAt?.sinceEvidence?.basis, 'field');
    const yaml = await cli(['explain', '-o', 'yaml', '-f', CAPI]);
    assert.equal(yaml.code, 0);
    assert.deepEqual(YAML.parse(yaml.stdout), json);
    for (const name of ['master-0', 'worker-0'])
      valid(JSON.parse((await cli(['explain', 'machine', name, '-f', DUMP, '-o', 'json'])).stdout));
  });

  test('a must-gather list: picked by name (TYPE NAME and TYPE/NAME), by namespace, from stdin', async () => {
    const byName = await cli(['explain', 'machine', 'master-0', '-f', DUMP]);
    assert.equal(byName.code, 0, byName.stderr);
    assert.match(byName.stdout, /^Machine machines\.machine\.openshift\.io\/master-0 -n openshift-machine-api/);
    assert.match(byName.stdout, /WARNING: removing this hook on two control-plane Machines can lose etcd quorum/);
    const slash = await cli(['explain', 'machines.machine.openshift.io/worker-0', '-f', DUMP]);
    assert.match(slash.stdout, /Authoritative API: spec ClusterAPI, status ClusterAPI/);
    const stdin = await cli(['explain', 'machine/master-0', '-n', 'openshift-machine-api', '-f', '-'], {
      stdin: await readFile(DUMP, 'utf8'),
    });
    assert.equal(stdin.code, 0, stdin.stderr);
  });

  test('several Machines match, or none: exit 2 naming what there is', async () => {
    const several = await cli(['explain', '-f', DUMP]);
    assert.equal(several.code, 2);
    assert.match(
      several.stderr,
      /^hookkeeper explain: 2 Machines match: name one \(and -n NAMESPACE\) of machines\.machine\.openshift\.io\/master-0 -n openshift-machine-api \(test\/fixtures\/explain\/mapi-dump\.yaml\), machines\.machine\.openshift\.io\/worker-0/,
    );
    const none = await cli(['explain', 'machines.cluster.x-k8s.io/master-0', '-f', DUMP]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no Machine "master-0" among the 2 in the files/);
    const wrongNs = await cli(['explain', 'machine', 'master-0', '-n', 'elsewhere', '-f', DUMP]);
    assert.match(wrongNs.stderr, /no Machine "master-0" in namespace elsewhere among the 2 in the files/);
  });

  test('usage errors exit 2 with one line: another kind, two Machines, -f with --kubeconfig, a bad -o, no name live', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['explain', 'pod', 'x', '-f', DUMP], /explains Machines only, not "pod"/],
      [['explain', 'machine', 'a', 'b', '-f', DUMP], /one Machine at a time/],
      [['explain', 'machine/a', 'b', '-f', DUMP], /one Machine at a time/],
      [
        ['explain', 'machine', 'a', '-f', DUMP, '--kubeconfig', 'x'],
        /-f\/--filename: reads the Machine offline: it cannot go with --kubeconfig/,
      ],
      [
        ['explain', 'machine', 'a', '-f', DUMP, '-o', 'wide'],
        /-o\/--output: "wide" is not an output format; give one of text, json, yaml/,
      ],
      [['explain', 'machine'], /which Machine\? give machine NAME/],
      [['explain', '-f', 'test/fixtures/explain/absent.yaml'], /absent\.yaml/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.equal(r.stdout, '');
    }
  });

  test('no cluster configured: the live path says where it looked (exit 2)', async () => {
    const r = await cli(['explain', 'machine', 'master-0'], { env: { HOME: '/nonexistent' } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^hookkeeper explain: no kubeconfig: no --kubeconfig, KUBECONFIG is not set/);
  });
});
