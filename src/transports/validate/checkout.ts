// The base revision as a directory, for rendering it as the working tree is rendered (`validate --old-ref REF -k DIR`,
// `--render CMD`). A detached `git worktree add` into a temporary directory, removed whatever happens.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBounded } from './process.js';

/**
 * What git reads from the environment to find a repository and its index. A hook (pre-commit runs inside `git
 * commit`) exports them for the user's own checkout: left in, `worktree add` would fill the commit's index with the
 * base revision, and git in a render at the base revision would read the user's repository instead of the checkout.
 */
const REPOSITORY_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_COMMON_DIR'];

export function withoutRepositoryVariables(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !REPOSITORY_VARIABLES.includes(k)));
}

export interface CheckoutOptions {
  /** The repository's top level (the working tree's). */
  top: string;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  /** The revision as the user named it, for errors. */
  name: string;
}

/**
 * Runs `use` with a checkout of `ref` (a commit, already verified). A worktree rather than `git archive | tar -x`:
 * it is exactly what `git checkout` writes (no `export-ignore` or `export-subst` attributes applied, LFS and eol
 * filters run), and git works inside it, as a Makefile or a chart's version script may need (`git describe`). Its
 * hooks are off (`post-checkout` would run the repository's code), and the user's working tree, index and HEAD
 * are not touched; the only trace, the worktree's entry under .git/worktrees, is removed with the directory.
 */
export async function withCheckout<T>(
  ref: string,
  options: CheckoutOptions,
  use: (dir: string) => Promise<T>,
): Promise<T> {
  const env = withoutRepositoryVariables(options.env);
  // The caller's TMPDIR (the environment validate was given), as git and the render commands see it.
  const tmp = await mkdtemp(join(options.env['TMPDIR'] || tmpdir(), 'hookkeeper-base-'));
  const dir = join(tmp, 'tree');
  const git = (args: string[], what: string): Promise<string> =>
    runBounded(['git', '-c', 'core.hooksPath=/dev/null', ...args], {
      cwd: options.top,
      env,
      timeoutMs: options.timeoutMs,
      maxBytes: 1024 * 1024,
      what,
    });
  try {
    await git(['worktree', 'add', '--detach', '--quiet', dir, ref], `checking out ${options.name} (git worktree add)`);
    return await use(dir);
  } finally {
    // Also after a failed or timed-out add, which may have registered the worktree before it stopped.
    const removed = await git(['worktree', 'remove', '--force', '--force', dir], 'git worktree remove').then(
      () => true,
      () => false,
    );
    await rm(tmp, { recursive: true, force: true });
    // A checkout stopped half-way (the deadline) leaves an entry whose directory is gone: prune drops such entries.
    if (!removed) await git(['worktree', 'prune'], 'git worktree prune').catch(() => undefined);
  }
}
