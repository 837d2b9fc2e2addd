// docs/ci.md's pre-commit path as a user walks it: pre-commit (from PyPI; $PRE_COMMIT or on PATH) installs the
// `hookkeeper-validate` hook from a git repository holding this working tree, into a scratch GitOps repository (a
// kustomize base and two overlays) configured with the docs' own `.pre-commit-config.yaml` entry, which renders the
// overlays at HEAD and as staged; then `git commit` runs it. Without pre-commit or kustomize the test skips, saying
// why (a failure under CI=true: .ci/run installs both).
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import YAML from 'yaml';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { codeBlocks } from '../helpers/docs.js';
import { FILES, REMOVE_HOOKS, baseMachine, linkTools, overlay, tools } from '../validate/gitops-repo.js';

const root = packageRoot();
const CI = process.env['CI'] === 'true';

/** The environment of a user's shell: none of the npm_* variables of the `npm run` that started this test. */
const userEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  GIT_AUTHOR_NAME: 'user',
  GIT_AUTHOR_EMAIL: 'user@example.invalid',
  GIT_COMMITTER_NAME: 'user',
  GIT_COMMITTER_EMAIL: 'user@example.invalid',
  ...extra,
});

function sh(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return spawnSync(cmd, [...args], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function ok(res: SpawnSyncReturns<string>, what: string): string {
  assert.equal(res.status, 0, `${what}:\n${res.stdout}${res.stderr}`);
  return res.stdout.trim();
}

/** A pre-commit that answers --version, or undefined. */
function findPreCommit(): string | undefined {
  for (const candidate of [process.env['PRE_COMMIT'], 'pre-commit']) {
    if (!candidate) continue;
    const res = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (res.status === 0) return candidate;
  }
  return undefined;
}

/**
 * A repository whose one commit is this working tree as git sees it (tracked and untracked files, ignored ones left
 * out), made with its own index so the checkout's index and refs are not touched: what `rev:` pins.
 */
function snapshot(dir: string): { repo: string; rev: string } {
  const repo = join(dir, 'hookkeeper.git');
  const env = userEnv({ GIT_DIR: repo, GIT_INDEX_FILE: join(dir, 'snapshot-index'), GIT_WORK_TREE: root });
  ok(sh('git', ['init', '--quiet', '--bare', repo], dir, userEnv({})), 'git init');
  ok(sh('git', ['add', '--all'], root, env), 'git add');
  const tree = ok(sh('git', ['write-tree'], root, env), 'git write-tree');
  const rev = ok(sh('git', ['commit-tree', tree, '-m', 'hookkeeper under test'], root, env), 'git commit-tree');
  ok(sh('git', ['update-ref', 'refs/heads/main', rev], root, env), 'git update-ref');
  return { repo, rev };
}

let work: string | undefined;
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

let preCommit: string | undefined;
before(() => {
  preCommit = findPreCommit();
});

test("docs/ci.md's pre-commit hook installs and refuses a commit whose overlay patch strips the etcd hook", async (t) => {
  if (!preCommit) {
    assert.ok(!CI, 'pre-commit is not installed: .ci/run installs it and sets PRE_COMMIT');
    t.skip('pre-commit is not installed (pip install pre-commit; or set PRE_COMMIT)');
    return;
  }
  if (!tools().kustomize) {
    assert.ok(!CI, 'kustomize is not installed: .ci/run provides it');
    t.skip('kustomize is not installed (set KUSTOMIZE)');
    return;
  }
  work = mkdtempSync(join(tmpdir(), 'hookkeeper-pre-commit-'));
  const { repo, rev } = snapshot(work);
  // kustomize on the PATH of `git commit`, as docs/ci.md says.
  const bin = join(work, 'bin');
  mkdirSync(bin);
  await linkTools(bin);
  const env = userEnv({
    PRE_COMMIT_HOME: join(work, 'pre-commit-home'),
    PATH: `${bin}:${process.env['PATH'] ?? ''}`,
  });

  // The docs' entry, as a user pastes it, pointed at the snapshot.
  const entry = codeBlocks('docs/ci.md', 'yaml').find((b) => /^repos:/m.test(b));
  assert.ok(entry, 'docs/ci.md shows a .pre-commit-config.yaml');
  const config = YAML.parse(entry) as { repos: Array<{ repo: string; rev: string }> };
  const [hookRepo] = config.repos;
  assert.ok(hookRepo);
  hookRepo.repo = repo;
  hookRepo.rev = rev;

  const user = join(work, 'gitops');
  mkdirSync(user, { recursive: true });
  const git = (...args: string[]): SpawnSyncReturns<string> => sh('git', args, user, env);
  ok(git('init', '--quiet', '--initial-branch=main'), 'git init');
  writeFileSync(join(user, 'README.md'), 'cluster manifests\n');
  writeFileSync(join(user, '.pre-commit-config.yaml'), YAML.stringify(config));
  ok(git('add', '.'), 'git add');
  ok(git('commit', '--quiet', '-m', 'start'), 'first commit');
  ok(sh(preCommit, ['install'], user, env), 'pre-commit install');

  const commit = (files: Record<string, string>, message: string): SpawnSyncReturns<string> => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(user, path, '..'), { recursive: true });
      writeFileSync(join(user, path), text);
    }
    ok(git('add', '-A'), 'git add');
    return git('commit', '-m', message);
  };

  // The first commit through the hook installs it (npm install -g from git); the overlays are new: CREATEs.
  const gitops = Object.fromEntries(Object.entries(FILES).filter(([path]) => !path.startsWith('charts/')));
  const added = commit(gitops, 'control plane');
  ok(added, 'a clean commit');
  assert.match(added.stdout + added.stderr, /hookkeeper validate\.+Passed/);

  const stripped = commit(
    {
      'overlays/prod/no-hooks.yaml': REMOVE_HOOKS,
      'overlays/prod/kustomization.yaml': overlay(['etcd-hook.yaml', 'no-hooks.yaml']),
    },
    'strip the etcd hook in prod',
  );
  assert.equal(stripped.status, 1, `the stripping commit is refused:\n${stripped.stdout}${stripped.stderr}`);
  const said = stripped.stdout + stripped.stderr;
  assert.match(said, /hookkeeper validate\.+Failed/);
  assert.match(
    said,
    /<kustomize build overlays\/prod>:\d+ .*Machine\.machine\.openshift\.io openshift-machine-api\/master-0 \[UPDATE\]: DENIED\n {2}deny owner-only-removal/,
  );
  assert.equal(ok(git('log', '--format=%s', '-1'), 'git log'), 'control plane', 'the refused commit was not made');
  // The refused commit's files are still staged, as git left them: the render at HEAD did not touch the index.
  assert.match(ok(git('status', '--porcelain'), 'git status'), /^A {2}overlays\/prod\/no-hooks\.yaml$/m);

  ok(git('reset', '-q', '--hard', 'HEAD'), 'git reset');
  ok(git('clean', '-qfd'), 'git clean');
  const labelled = commit({ 'base/masters.yaml': baseMachine({ team: 'platform' }) }, 'a label on the masters');
  ok(labelled, 'a commit that keeps the hook');
  assert.match(labelled.stdout + labelled.stderr, /hookkeeper validate\.+Passed/);
});
