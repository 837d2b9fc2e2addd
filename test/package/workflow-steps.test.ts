// docs/ci.md's GitHub Actions job, every `run:` step exactly as written and in order, as a runner runs them
// (`bash --noprofile --norc -eo pipefail`), in a scratch GitOps repository (base, two overlays, a chart) checked out as
// actions/checkout leaves a pull request: the install step packs this repository's committed HEAD (cloned where the
// second checkout puts it) and installs the tarball under a temporary npm prefix, then the validate step gates with
// that installed hookkeeper. A registry or npm cache must serve the dependencies; without one the test is skipped,
// saying why (a failure under CI=true).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { codeBlocks, readDoc } from '../helpers/docs.js';
import { baseMachine, gitopsRepo, overlay, REMOVE_HOOKS, tools } from '../validate/gitops-repo.js';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}

const CI = process.env['CI'] === 'true';

/** The one workflow docs/ci.md shows, its steps in order. */
function steps(): Step[] {
  const docs = codeBlocks('docs/ci.md', 'yaml').map((text) => parse(text) as { jobs?: unknown } | null);
  const workflows = docs.filter((d): d is { jobs: Record<string, { steps: Step[] }> } => d?.jobs !== undefined);
  assert.equal(workflows.length, 1, 'docs/ci.md shows one workflow');
  return Object.values(workflows[0]?.jobs ?? {}).flatMap((j) => j.steps);
}

test("docs/ci.md's workflow, every step run as Actions runs it, installs hookkeeper and gates a pull request", async (t) => {
  const { kustomize, helm } = tools();
  if (!kustomize || !helm) {
    assert.ok(!CI, 'kustomize and helm are not installed: .ci/run provides them');
    return t.skip('kustomize or helm is not installed (set KUSTOMIZE and HELM)');
  }
  const all = steps();
  const uses = all.flatMap((s) => (s.uses ? [s.uses.replace(/@.*/, '')] : []));
  // The steps emulated here rather than run: were the workflow to use another action, this test would not know it.
  assert.deepEqual(uses, ['actions/checkout', 'actions/checkout', 'actions/setup-node'], 'the actions emulated');
  const hookkeeperCheckout = all.find((s) => s.with?.['repository'] !== undefined);
  const path = hookkeeperCheckout?.with?.['path'];
  assert.ok(typeof path === 'string' && path !== '', 'the second checkout names its path');

  const repo = await gitopsRepo();
  const prefix = mkdtempSync(join(tmpdir(), 'hookkeeper-ci-prefix-'));
  t.after(async () => {
    await repo.cleanup();
    rmSync(prefix, { recursive: true, force: true });
  });
  // actions/checkout with fetch-depth 0: the pull request's branch, and the base branch as origin/main.
  repo.git('update-ref', 'refs/remotes/origin/main', 'main');
  await repo.pullRequest('remove-patch', async () => {
    await repo.write('overlays/prod/no-hooks.yaml', REMOVE_HOOKS);
    await repo.write('overlays/prod/kustomization.yaml', overlay(['etcd-hook.yaml', 'no-hooks.yaml']));
  });
  // The second checkout: this repository at its committed HEAD (a clean clone in CI), where the workflow puts it.
  const clone = spawnSync('git', ['clone', '-q', '--no-local', packageRoot(), join(repo.dir, path)], {
    encoding: 'utf8',
  });
  assert.equal(clone.status, 0, clone.stderr);
  repo.git('update-index', '--refresh');

  // A runner's environment: npm's global prefix is the job's own, and nothing of the `npm run` that started this test.
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  Object.assign(env, {
    PATH: `${join(prefix, 'bin')}:${repo.bin}:${process.env['PATH'] ?? ''}`,
    npm_config_prefix: prefix,
    // A cache of its own, as a runner starts with.
    npm_config_cache: join(prefix, '.npm'),
    GITHUB_BASE_REF: 'main',
  });
  delete env['HOOKKEEPER_CONFIG'];
  const run = (script: string): { status: number | null; out: string } => {
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: repo.dir,
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  };

  const [install, gate, ...more] = all.flatMap((s) => (s.run ? [s.run] : []));
  assert.ok(install && gate && more.length === 0, 'two run steps: install, then validate');
  const installed = run(install);
  if (installed.status !== 0 && /E(AI_AGAIN|NOTFOUND|CONNREFUSED)|ENOTCACHED|network/i.test(installed.out)) {
    assert.ok(!CI, `the install step needs the npm registry or cache:\n${installed.out}`);
    return t.skip('no npm registry or cache for the install step');
  }
  assert.equal(installed.status, 0, `the install step:\n${installed.out}`);
  const version = (JSON.parse(readDoc('package.json')) as { version: string }).version;
  assert.match(installed.out, new RegExp(`^hookkeeper ${version.replace(/\./g, '\\.')}$`, 'm'), 'hookkeeper version');

  const removed = run(gate);
  assert.equal(removed.status, 1, removed.out);
  assert.match(
    removed.out,
    /<kustomize build overlays\/prod>:\d+ .*master-0 \[UPDATE\]: DENIED\n {2}deny owner-only-removal/,
  );
  // The installed command, not a checkout's: nothing of this repository's source is on the PATH.
  assert.equal(run('command -v hookkeeper').out.trim(), join(prefix, 'bin', 'hookkeeper'));

  await repo.pullRequest('label', () => repo.write('base/masters.yaml', baseMachine({ team: 'platform' })));
  const labelled = run(gate);
  assert.equal(labelled.status, 0, labelled.out);
  assert.match(labelled.out, /^3 objects: 3 allowed, 0 denied/m);
});
