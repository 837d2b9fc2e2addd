// `hookkeeper validate --old-ref` as a CI gate on a real git repository, run as CI runs it (a shell, the CLI as a
// process, pipes): a pull request that strips the etcd hook fails the gate whether the Machine comes through stdin,
// a moved file or a renamed file. Needs git, not the API server.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import type { KubeObject } from '../../src/core/types.js';
import { ETCD, machine } from '../fixtures/openshift.js';
import { findKustomize, NO_KUSTOMIZE } from '../helpers/kustomize.js';
import { hookkeeperShim } from '../validate/gitops-repo.js';
import { readSettings } from './harness/settings.js';

const settings = readSettings();
const kustomize = findKustomize();
const MACHINE = 'manifests/openshift-machine-api/master-0.yaml';

const yaml = (...objects: KubeObject[]): string => objects.map((o) => YAML.stringify(o)).join('---\n');
const withoutNamespace = (m: KubeObject): KubeObject => {
  const meta = { ...(m['metadata'] as Record<string, unknown>) };
  delete meta['namespace'];
  return { ...m, metadata: meta };
};

let dir: string;
let bin: string;

function git(...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', '-c', 'init.defaultBranch=main', ...args],
    { cwd: dir, encoding: 'utf8' },
  );
}

async function write(path: string, text: string): Promise<void> {
  await mkdir(join(dir, dirname(path)), { recursive: true });
  await writeFile(join(dir, path), text);
}

/** A pull request: a branch off main with `change` committed, as CI checks it out. */
async function pullRequest(branch: string, change: () => Promise<void>): Promise<void> {
  git('checkout', '-q', '-B', branch, 'main');
  await change();
  git('add', '-A');
  git('commit', '-q', '-m', branch);
}

/** The CI step, in a shell: exit code and output of the `hookkeeper` it calls. */
function ciStep(script: string): { code: number; stdout: string; stderr: string } {
  // The embedded default policy decides, whatever policy the runner's environment names.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
    KUSTOMIZE_CMD: (kustomize ?? []).join(' '),
  };
  delete env['HOOKKEEPER_CONFIG'];
  const r = spawnSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8', env });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function assertGateFails(run: { code: number; stdout: string; stderr: string }): void {
  assert.equal(run.code, 1, `the gate must fail (exit 1)\n${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /Machine\.machine\.openshift\.io openshift-machine-api\/master-0 \[UPDATE\]: DENIED/);
  assert.match(run.stdout, /deny owner-only-removal spec\.lifecycleHooks\.preDrain\[0\] \(old: main:/);
  assert.match(run.stdout, /may not remove preDrain hook "EtcdQuorumOperator"/);
}

describe('validate --old-ref as a CI gate on a git repository (no API server)', () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-e2e-gate-'));
    // `hookkeeper` on PATH runs this checkout's CLI from source, as an installed one runs dist/.
    bin = join(dir, '.bin');
    await mkdir(bin);
    await hookkeeperShim(bin);
    git('init', '-q');
    await write('.gitignore', '.bin/\n');
    await write(MACHINE, yaml(machine({ name: 'master-0', preDrain: [ETCD] })));
    await write('manifests/openshift-machine-api/worker-0.yaml', yaml(machine({ name: 'worker-0', role: 'worker' })));
    await write('deploy/base/kustomization.yaml', 'resources: [master-1.yaml]\n');
    await write('deploy/base/master-1.yaml', yaml(withoutNamespace(machine({ name: 'master-1', preDrain: [ETCD] }))));
    await write('deploy/prod/kustomization.yaml', 'namespace: openshift-machine-api\nresources: [../base]\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'main');
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  test('through stdin: cat FILE | hookkeeper validate --old-ref main -', async () => {
    await pullRequest('strip-stdin', () => write(MACHINE, yaml(machine({ name: 'master-0', preDrain: [] }))));
    assertGateFails(ciStep(`cat ${MACHINE} | hookkeeper validate --old-ref main -`));
  });

  test('through a moved file: hookkeeper validate --old-ref main clusters/prod', async () => {
    await pullRequest('strip-moved', async () => {
      await mkdir(join(dir, 'clusters'));
      git('mv', 'manifests/openshift-machine-api', 'clusters/prod');
      await write('clusters/prod/master-0.yaml', yaml(machine({ name: 'master-0', preDrain: [] })));
    });
    assertGateFails(ciStep('hookkeeper validate --old-ref main clusters/prod'));
  });

  test("through a renamed file: the PR's changed files (git diff --name-only main) are validated", async () => {
    await pullRequest('strip-renamed', async () => {
      git('mv', MACHINE, 'manifests/openshift-machine-api/control-plane-0.yaml');
      await write(
        'manifests/openshift-machine-api/control-plane-0.yaml',
        yaml(machine({ name: 'master-0', preDrain: [] })),
      );
    });
    const run = ciStep('hookkeeper validate --old-ref main $(git diff --name-only --diff-filter=d main -- manifests)');
    assertGateFails(run);
    assert.match(run.stdout, /^manifests\/openshift-machine-api\/control-plane-0\.yaml:1 /m);
  });

  test('the same gate passes a pull request that keeps the hook, and fails an empty stream', async () => {
    await pullRequest('keep', () =>
      write(MACHINE, yaml(machine({ name: 'master-0', preDrain: [{ name: 'Backup', owner: 'backup' }, ETCD] }))),
    );
    const kept = ciStep(`cat ${MACHINE} | hookkeeper validate --old-ref main -`);
    assert.equal(kept.code, 0, kept.stdout + kept.stderr);
    // What a failed `kustomize build` sends to a pipe without pipefail.
    const empty = ciStep('false | hookkeeper validate --old-ref main -');
    assert.equal(empty.code, 2, empty.stdout + empty.stderr);
    assert.match(empty.stderr, /no objects to validate in <stdin>/);
  });

  test(
    'through kustomize build of an overlay that gives the namespace: -n matches the namespace-less base at main',
    { skip: kustomize || settings.ci ? false : NO_KUSTOMIZE },
    async () => {
      assert.ok(kustomize, 'CI builds kustomize (.ci/run)');
      await pullRequest('strip-kustomize', () =>
        write('deploy/base/master-1.yaml', yaml(withoutNamespace(machine({ name: 'master-1', preDrain: [] })))),
      );
      const run = ciStep('$KUSTOMIZE_CMD deploy/prod | hookkeeper validate --old-ref main -n openshift-machine-api -');
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout, /Machine\.machine\.openshift\.io openshift-machine-api\/master-1 \[UPDATE\]: DENIED/);
      // Without -n the base's Machine has no namespace at main: no old version, and the note says so.
      const bare = ciStep('$KUSTOMIZE_CMD deploy/prod | hookkeeper validate --old-ref main -');
      assert.equal(bare.code, 0, bare.stdout + bare.stderr);
      assert.match(
        bare.stdout,
        /note: no old version of Machine\.machine\.openshift\.io openshift-machine-api\/master-1 was found at main: judged as a CREATE/,
      );
    },
  );

  test(
    'through -k and --render: the overlay rendered at main too, so no -n is needed and the removal is denied',
    { skip: kustomize || settings.ci ? false : NO_KUSTOMIZE },
    async () => {
      assert.ok(kustomize, 'CI builds kustomize (.ci/run)');
      await pullRequest('strip-rendered', () =>
        write('deploy/base/master-1.yaml', yaml(withoutNamespace(machine({ name: 'master-1', preDrain: [] })))),
      );
      // -k finds kustomize on the PATH (else kubectl); --render runs what it is given.
      await symlink(kustomize[0] ?? '', join(bin, kustomize[1] === 'build' ? 'kustomize' : 'kubectl')).catch(() => {});
      for (const flags of ['-k deploy/prod', '--render "$KUSTOMIZE_CMD deploy/prod"']) {
        const run = ciStep(`hookkeeper validate --old-ref main ${flags}`);
        assert.equal(run.code, 1, run.stdout + run.stderr);
        assert.match(
          run.stdout,
          /^<[^>]*deploy\/prod>:\d+ .*Machine\.machine\.openshift\.io openshift-machine-api\/master-1 \[UPDATE\]: DENIED/m,
        );
        assert.match(
          run.stdout,
          /deny owner-only-removal spec\.lifecycleHooks\.preDrain\[0\] \(old: main:<[^>]*deploy\/prod>:\d+\)/,
        );
      }
    },
  );
});
