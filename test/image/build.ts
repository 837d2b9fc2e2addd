// The image under test: scripts/build-image.sh's OCI archive, rebuilt only when something it is built from changed
// (the Containerfile, the ignore file, the script, and every path the Containerfile copies from the context).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';

/** Context paths the Containerfile copies (COPY without --from), in order. */
export function copiedPaths(containerfile: string): string[] {
  return containerfile
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((w) => w[0] === 'COPY' && !w.some((x) => x.startsWith('--from')))
    .flatMap((w) => w.slice(1, -1).filter((x) => !x.startsWith('--')));
}

function walk(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((e) => walk(join(path, e)));
}

/** A digest of everything the build reads from the repository. */
export function inputsKey(root: string, env: NodeJS.ProcessEnv): string {
  const hash = createHash('sha256');
  const containerfile = readFileSync(join(root, 'Containerfile'), 'utf8');
  const files = ['Containerfile', '.containerignore', 'scripts/build-image.sh', ...copiedPaths(containerfile)].flatMap(
    (p) => walk(join(root, p)),
  );
  for (const file of files)
    hash
      .update(`${relative(root, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  for (const name of [
    'HOOKKEEPER_IMAGE_NODE_MAJOR',
    'HOOKKEEPER_IMAGE_NODE',
    'HOOKKEEPER_IMAGE_NPM_MAJOR',
    'HOOKKEEPER_IMAGE_SUITE',
  ]) {
    hash.update(`${name}=${env[name] ?? ''}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

export function imageCache(env: NodeJS.ProcessEnv): string {
  return env['HOOKKEEPER_IMAGE_CACHE'] ?? join(env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'hookkeeper-image');
}

/** The archive for the current inputs: cached, or built now (minutes cold). Older archives are removed. */
export function ensureImage(
  root: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): { archive: string; built: boolean } {
  const dir = join(imageCache(env), 'archives');
  const archive = join(dir, `hookkeeper-${inputsKey(root, env)}.tar`);
  if (existsSync(archive)) return { archive, built: false };
  mkdirSync(dir, { recursive: true });
  const partial = `${archive}.partial`;
  log(`building the image (scripts/build-image.sh ${relative(root, archive) || archive})`);
  execFileSync(join(root, 'scripts', 'build-image.sh'), [partial], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  renameSync(partial, archive);
  for (const old of readdirSync(dir)) if (join(dir, old) !== archive) rmSync(join(dir, old), { force: true });
  return { archive, built: true };
}
