// A throw-away git repository with one commit, for tests of `validate --old-ref`.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function gitRepo(
  files: Record<string, string>,
): Promise<{ dir: string; git: (...args: string[]) => string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-git-'));
  const git = (...args: string[]): string =>
    execFileSync(
      'git',
      ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', '-c', 'init.defaultBranch=main', ...args],
      { cwd: dir, encoding: 'utf8' },
    );
  git('init', '-q');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  return { dir, git };
}
