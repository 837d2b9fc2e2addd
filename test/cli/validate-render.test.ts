// `validate --old-ref REF -k DIR` and `--render CMD` on a scratch GitOps repository (test/validate/gitops-repo.ts),
// with real git, kustomize and helm: both sides rendered, so an overlay's patch that removes the etcd hook, or the
// deletion of the patch that added it, is judged as the removal it is. Without kustomize or helm their tests skip,
// saying why (a failure under CI=true: .ci/run provides both).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import type { ValidateReport } from '../../src/transports/validate/report.js';
import { cli, type CliRun } from '../helpers/cli.js';
import {
  ADD_ETCD_HOOK,
  REMOVE_HOOKS,
  baseMachine,
  gitopsRepo,
  overlay,
  tools,
  type GitopsRepo,
} from '../validate/gitops-repo.js';

const CI = process.env['CI'] === 'true';
const found = tools();
const skip = (what: 'kustomize' | 'helm'): string | false => {
  if (found[what]) return false;
  assert.ok(!CI, `${what} is not installed: .ci/run provides it`);
  return `no ${what} (set ${what.toUpperCase()}=/path/to/${what} to run)`;
};
const HELM = 'helm template charts/machines';

let repo: GitopsRepo;
// The runs' own TMPDIR, so what other tests on the machine leave there for a moment is not read as this test's leftover.
let scratch: string;
before(async () => {
  repo = await gitopsRepo();
  scratch = mkdtempSync(join(tmpdir(), 'hookkeeper-render-test-'));
});
after(async () => {
  await repo.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return cli(['validate', '--old-ref', 'main', ...args], {
    cwd: repo.dir,
    env: {
      PATH: `${repo.bin}:${process.env['PATH'] ?? ''}`,
      HOME: process.env['HOME'] ?? tmpdir(),
      TMPDIR: scratch,
      ...env,
    },
  });
}

function assertRemovalDenied(r: CliRun, label: string): void {
  assert.equal(r.code, 1, `the gate fails:\n${r.stdout}${r.stderr}`);
  assert.match(
    r.stdout,
    new RegExp(
      `^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+ .*Machine\\.machine\\.openshift\\.io openshift-machine-api/master-0 \\[UPDATE\\]: DENIED`,
      'm',
    ),
  );
  assert.match(r.stdout, /deny owner-only-removal spec\.lifecycleHooks\.preDrain\[0\] \(old: main:</);
  assert.match(r.stdout, /may not remove preDrain hook "EtcdQuorumOperator"/);
}

/** No worktree, temporary checkout or change to the user's index is left behind. */
function assertNothingLeft(): void {
  assert.equal(repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)?.length, 1, 'one worktree');
  assert.equal(repo.git('status', '--porcelain'), '', 'the working tree and index are as they were');
  assert.deepEqual(
    readdirSync(scratch).filter((d) => d.startsWith('hookkeeper-base-')),
    [],
  );
}

describe('a patch that removes the etcd hook (op: remove, path: /spec/lifecycleHooks)', () => {
  before(async () => {
    await repo.pullRequest('remove-patch', async () => {
      await repo.write('overlays/prod/no-hooks.yaml', REMOVE_HOOKS);
      await repo.write('overlays/prod/kustomization.yaml', overlay(['etcd-hook.yaml', 'no-hooks.yaml']));
    });
  });

  test('-k overlays/prod fails the gate', { skip: skip('kustomize') }, async () => {
    assertRemovalDenied(await run(['-k', 'overlays/prod']), '<kustomize build overlays/prod>');
    assertNothingLeft();
  });

  test('--render "kustomize build overlays/prod" fails the gate', { skip: skip('kustomize') }, async () => {
    const r = await run(['--render', 'kustomize build overlays/prod']);
    assertRemovalDenied(r, '<render: kustomize build overlays/prod>');
  });

  test(
    '-k for each overlay: each judged against its own old render, one the same Machine',
    { skip: skip('kustomize') },
    async () => {
      const r = await run(['-k', 'overlays/staging', '-k', 'overlays/prod', '-o', 'json']);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const report = JSON.parse(r.stdout) as ValidateReport;
      assert.deepEqual(
        report.results.map((x) => [x.file, x.operation, x.allowed]),
        [
          ['<kustomize build overlays/staging>', 'UPDATE', true],
          ['<kustomize build overlays/prod>', 'UPDATE', false],
        ],
      );
      assert.deepEqual(report.problems, []);
    },
  );
});

describe('a pull request that deletes the patch that added the etcd hook', () => {
  before(async () => {
    await repo.pullRequest('delete-patch', async () => {
      await repo.remove('overlays/prod/etcd-hook.yaml');
      await repo.write('overlays/prod/kustomization.yaml', overlay([]));
    });
  });

  test('-k overlays/prod fails the gate', { skip: skip('kustomize') }, async () => {
    assertRemovalDenied(await run(['-k', 'overlays/prod']), '<kustomize build overlays/prod>');
  });

  test('--render "kustomize build overlays/prod" fails the gate', { skip: skip('kustomize') }, async () => {
    assertRemovalDenied(
      await run(['--render', 'kustomize build overlays/prod']),
      '<render: kustomize build overlays/prod>',
    );
  });
});

describe('a chart whose value drops the etcd hook', () => {
  test('--render "helm template charts/machines" fails the gate', { skip: skip('helm') }, async () => {
    await repo.pullRequest('chart-value', () => repo.write('charts/machines/values.yaml', 'etcdHook: false\n'));
    assertRemovalDenied(await run(['--render', HELM]), `<render: ${HELM}>`);
    assertNothingLeft();
  });
});

describe('a pull request that changes nothing about hooks', () => {
  test(
    'passes with -k, --render kustomize and --render helm together',
    { skip: skip('kustomize') || skip('helm') },
    async () => {
      await repo.pullRequest('label', () => repo.write('base/masters.yaml', baseMachine({ team: 'platform' })));
      const args = ['-k', 'overlays/prod', '--render', 'kustomize build overlays/staging', '--render', HELM];
      const r = await run([...args, '-o', 'json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const report = JSON.parse(r.stdout) as ValidateReport;
      assert.deepEqual(
        report.results.map((x) => [x.file, x.operation, x.allowed]),
        [
          ['<kustomize build overlays/prod>', 'UPDATE', true],
          ['<render: kustomize build overlays/staging>', 'UPDATE', true],
          [`<render: ${HELM}>`, 'UPDATE', true],
        ],
      );
    },
  );
});

describe('a render that fails, hangs or is new: an input error naming the revision, or a note', () => {
  test('a command that fails at the base revision: exit 2, which revision, its stderr; nothing judged', async () => {
    await repo.pullRequest('new-file', () => repo.write('rendered.yaml', baseMachine()));
    const r = await run(['--render', 'cat rendered.yaml']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /--render "cat rendered\.yaml" at main \(the base revision\) failed \(exit 1\)/);
    assert.match(r.stderr, /\n {2}cat: .*rendered\.yaml.*No such file/);
    assertNothingLeft();
    // docs/ci.md's form for what a pull request adds: nothing printed at the base revision, so CREATEs.
    const added = await run(['--render', 'if [ -f rendered.yaml ]; then cat rendered.yaml; fi', '-o', 'json']);
    assert.equal(added.code, 0, added.stdout + added.stderr);
    assert.deepEqual(
      (JSON.parse(added.stdout) as ValidateReport).results.map((x) => x.operation),
      ['CREATE'],
    );
  });

  test('a command that fails in the working tree: exit 2 before the base revision is checked out', async () => {
    const r = await run(['--render', 'echo "values.yaml: parse error" >&2; exit 3', '-o', 'junit']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /in the working tree failed \(exit 3\)\n {2}values\.yaml: parse error/);
    assert.match(
      r.stdout,
      /<error type="input" message="[^"]*in the working tree failed/,
      'the report file says so too',
    );
  });

  test('a command past --render-timeout is killed with what it started: exit 2', async () => {
    const pidFile = `${repo.dir}/.sleeper`;
    const r = await run(['--render', `sleep 60 & echo $! > ${pidFile}; wait`, '--render-timeout', '300ms']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /in the working tree did not finish within 300ms \(--render-timeout\)/);
    // The shell's child is in the killed process group: gone, or a zombie waiting for init.
    const pid = readFileSync(pidFile, 'utf8').trim();
    rmSync(pidFile);
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(!alive(pid), `sleep (pid ${pid}) was killed`);
  });

  test(
    '-k of an overlay that the pull request adds: judged as CREATEs, with a note',
    { skip: skip('kustomize') },
    async () => {
      await repo.pullRequest('new-overlay', async () => {
        await repo.write('overlays/edge/kustomization.yaml', overlay(['etcd-hook.yaml']));
        await repo.write('overlays/edge/etcd-hook.yaml', ADD_ETCD_HOOK);
      });
      const r = await run(['-k', 'overlays/edge', '-o', 'json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const report = JSON.parse(r.stdout) as ValidateReport;
      assert.deepEqual(
        report.results.map((x) => x.operation),
        ['CREATE'],
      );
      assert.ok(
        report.notes.includes(
          'overlays/edge does not exist at main: the objects of <kustomize build overlays/edge> are judged as CREATEs',
        ),
        report.notes.join('\n'),
      );
    },
  );

  test(
    "a render at the base revision inside a git hook leaves the commit's index alone",
    { skip: skip('kustomize') },
    async () => {
      await repo.pullRequest('hook-env', () => repo.write('base/masters.yaml', baseMachine({ team: 'storage' })));
      // What git exports to a pre-commit hook, the pre-commit framework's included.
      const hook = { GIT_DIR: '.git', GIT_INDEX_FILE: `${repo.dir}/.git/index`, GIT_WORK_TREE: repo.dir };
      const r = await run(
        [
          '-k',
          'overlays/prod',
          '--render',
          'git rev-parse --is-inside-work-tree >/dev/null && kustomize build overlays/staging',
        ],
        hook,
      );
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assertNothingLeft();
    },
  );

  test('-k outside the repository, --old with a render, a bad timeout: usage errors', async () => {
    for (const [args, message] of [
      [['-k', tmpdir()], /is outside the repository/],
      [['--render', 'true', '--render-timeout', 'soon'], /--render-timeout: "soon" is not a duration; give one/],
    ] as const) {
      const r = await run([...args]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, message);
    }
    const old = await cli(['validate', '--old', 'base', '--render', 'true'], { cwd: repo.dir });
    assert.equal(old.code, 2);
    assert.match(old.stderr, /--old: cannot go with -k or --render; give --old-ref/);
  });
});

/** Whether a process is running: not gone, and not a zombie waiting to be reaped. */
function alive(pid: string): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
