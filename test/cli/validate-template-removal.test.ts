// `hookkeeper validate` and a hook removed from a MachineSet's template (template-hook-removed): a warning, which
// `--fail-on warn` makes fail the run, against the old version from git (--old-ref) or a directory (--old); the
// owner's own removal (--as its identity) says nothing.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import type { KubeObject } from '../../src/core/types.js';
import { ETCD, USERS, type HookSpec } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';
import { gitRepo } from '../validate/git-repo.js';

function machineSet(preDrain: HookSpec[]): string {
  const set: KubeObject = {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name: 'ci-worker-us-east-1a', namespace: 'openshift-machine-api' },
    spec: { replicas: 2, template: { spec: { lifecycleHooks: { preDrain } } } },
  };
  return YAML.stringify(set);
}

const stripped = machineSet([]);
const WARNING =
  /warn template-hook-removed spec\.template\.spec\.lifecycleHooks\.preDrain\[0\] \(old: [^)]+\)\n {4}every Machine this MachineSet makes from now on lacks preDrain hook "EtcdQuorumOperator" of "clusteroperator\/etcd": removed from its template\n {4}fix: if its Machines still need it, put \{name: EtcdQuorumOperator, owner: clusteroperator\/etcd\} back in/;

describe('validate: a hook removed from a MachineSet template', () => {
  let repo: Awaited<ReturnType<typeof gitRepo>>;
  let dir: string;
  before(async () => {
    repo = await gitRepo({ 'manifests/workers.yaml': machineSet([ETCD]) });
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-validate-template-'));
    await mkdir(join(dir, 'before'));
    await writeFile(join(dir, 'before/workers.yaml'), machineSet([ETCD]));
  });
  after(async () => {
    await rm(repo.dir, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  test('--old-ref: warned; --fail-on warn fails the run, the default does not', async () => {
    const warn = await cli(['validate', '--old-ref', 'main', '--fail-on', 'warn', '-'], {
      cwd: repo.dir,
      stdin: stripped,
    });
    assert.equal(warn.code, 1, warn.stdout + warn.stderr);
    assert.match(
      warn.stdout,
      /MachineSet\.machine\.openshift\.io openshift-machine-api\/ci-worker-us-east-1a \[UPDATE\]: allowed/,
    );
    assert.match(warn.stdout, WARNING);
    // Offline, only the registry makes a requester the owner: the report says a grant could have made it quiet.
    assert.match(warn.stdout, /template-hook-removed: the cluster's RBAC was not consulted \(validate is offline\)/);
    const plain = await cli(['validate', '--old-ref', 'main', '-'], { cwd: repo.dir, stdin: stripped });
    assert.equal(plain.code, 0, plain.stdout + plain.stderr);
    assert.match(plain.stdout, WARNING);
  });

  test('--old DIR: the same warning fails the run under --fail-on warn', async () => {
    const r = await cli(['validate', '--old', 'before', '--fail-on', 'warn', '-'], { cwd: dir, stdin: stripped });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, WARNING);
  });

  test("the owner's own removal (--as its service account): quiet, and --fail-on warn passes", async () => {
    const r = await cli(
      ['validate', '--old-ref', 'main', '--fail-on', 'warn', '--as', USERS.etcdOperator.username, '-'],
      { cwd: repo.dir, stdin: stripped },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /template-hook-removed/);
  });
});
