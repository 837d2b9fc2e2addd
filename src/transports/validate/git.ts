// `validate --old-ref REF`: the manifests as they were at a git revision, so a pull request is judged as the UPDATE
// it will be. Two git processes whatever the number of files: ls-tree, then one cat-file --batch.
import { spawn } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError } from '../../errors.js';
import {
  displayPath,
  isExcluded,
  isManifestName,
  READ_AT_ONCE_BYTES,
  STDIN,
  type InputFile,
} from '../../infrastructure/manifests/inputs.js';

/** Thrown (as a usage error) when git's output passes `maxOutput`: the process is killed, the output dropped. */
class TooMuch extends AppError {}

function git(args: readonly string[], cwd: string, input?: string, maxOutput = Infinity): Promise<Buffer> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let received = 0;
    child.stdout.on('data', (c: Buffer) => {
      if (received > maxOutput) return;
      received += c.length;
      if (received <= maxOutput) return void out.push(c);
      out.length = 0;
      child.kill();
      reject(new TooMuch('USAGE', `git ${args[0] ?? ''} printed more than ${maxOutput} bytes`));
    });
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (cause) => reject(new AppError('USAGE', `cannot run git: ${cause.message}`, { cause })));
    child.on('close', (code) => {
      if (code === 0) resolveRun(Buffer.concat(out));
      else
        reject(
          new AppError(
            'USAGE',
            `git ${args[0] ?? ''} failed: ${Buffer.concat(err).toString().trim() || `exit ${String(code)}`}`,
          ),
        );
    });
    child.stdin.end(input);
  });
}

export async function gitToplevel(cwd: string): Promise<string> {
  return (await git(['rev-parse', '--show-toplevel'], cwd)).toString().trim();
}

/** The commit a --old-ref names (its object name); a usage error when it names none in the repository at `top`. */
export async function verifyCommit(ref: string, top: string): Promise<string> {
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], top)).toString().trim();
  } catch {
    throw new AppError('USAGE', `--old-ref: ${JSON.stringify(ref)} is not a commit in ${top}`);
  }
}

/** Splits `git cat-file --batch` output: "<oid> blob <size>\n<content>\n" per object. */
function parseBatch(out: Buffer): Buffer[] {
  const blobs: Buffer[] = [];
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    const header = out.subarray(at, eol).toString();
    const size = Number(header.split(' ')[2]);
    if (!Number.isInteger(size)) throw new AppError('INTERNAL', `unexpected git cat-file output: ${header}`);
    blobs.push(out.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
  return blobs;
}

/** How much `--old-ref` reads at a revision: the bound on a file read at once, and a count that keeps git's work bounded. */
export interface RefLimits {
  /** The manifest files' bytes. */
  maxBytes: number;
  /** The manifest files. */
  maxFiles: number;
  /** The revision's file listing (every file, manifest or not): a huge repository is refused while it is listed. */
  maxListingBytes: number;
}

export const REF_LIMITS: RefLimits = Object.freeze({
  maxBytes: READ_AT_ONCE_BYTES,
  maxFiles: 50_000,
  maxListingBytes: READ_AT_ONCE_BYTES,
});

interface Entry {
  oid: string;
  path: string;
  size: number;
  searchOnly: boolean;
}

function hiddenBelow(path: string, dir: string): boolean {
  return path
    .slice(dir.length)
    .split('/')
    .some((part) => part.startsWith('.'));
}

function size(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${n} bytes`;
}

/**
 * Every manifest file at `ref`, for finding old versions by identity whatever file (or stream) holds the new one:
 * the whole repository's *.yaml, *.yml and *.json, hidden entries skipped, as a directory walk skips them. Files
 * under `paths` (as given on the command line; a file named there is read whatever its name) are the old set proper,
 * whose objects missing from the inputs are deletions; the others are `searchOnly`. Names are shown as "REF:path".
 * Refused, before anything is read, when the files add up to more than `limits`.
 */
export async function readAtRef(
  ref: string,
  paths: readonly string[],
  cwd: string,
  limits: Partial<RefLimits> = {},
  exclude: readonly string[] = [],
): Promise<InputFile[]> {
  const { maxBytes, maxFiles, maxListingBytes } = { ...REF_LIMITS, ...limits };
  const top = await gitToplevel(cwd);
  await verifyCommit(ref, top);
  const explicit = new Set<string>();
  for (const p of paths.filter((x) => x !== STDIN)) {
    // The working tree may be reached through a symlink; git reports the real path of the top level.
    const abs = resolve(cwd, p);
    const real = await realpath(abs).catch(() => abs);
    const rel = relative(top, real);
    if (rel.startsWith('..') || isAbsolute(rel))
      throw new AppError('USAGE', `--old-ref: ${p} is outside the git repository ${top}`);
    explicit.add(rel.split(sep).join('/'));
  }
  const listing = (
    await git(['ls-tree', '-r', '-l', '-z', ref], top, undefined, maxListingBytes).catch((err: unknown) => {
      if (!(err instanceof TooMuch)) throw err;
      throw new AppError(
        'USAGE',
        `--old-ref: the file listing of ${ref} is larger than the ${size(maxListingBytes)} validate reads to find old versions; ` +
          'give the old manifests with --old PATH instead (e.g. rendered at the base revision)',
      );
    })
  ).toString();
  const lines = listing.split('\0');
  // Directories holding a Helm chart at the revision: inside the paths given they are skipped, as in the working tree.
  const charts = new Set<string>();
  for (const line of lines) {
    const m = /\t((?:.*\/)?)Chart\.yaml$/s.exec(line);
    if (m) charts.add((m[1] as string).replace(/\/$/, ''));
  }
  // A file inside the paths given is skipped as the working tree's walk skips it: excluded, or in a chart's directory.
  const skipped = (path: string, dir: string): boolean => {
    const rel = dir === '' ? path : path.slice(dir.length + 1);
    if (charts.has(dir) || isExcluded(rel, exclude)) return true;
    const parts = rel.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      if (charts.has(dir === '' ? sub : `${dir}/${sub}`) || isExcluded(sub, exclude, true)) return true;
    }
    return false;
  };
  const entries: Entry[] = [];
  let bytes = 0;
  for (const line of lines) {
    // Symbolic links (120000) and submodules (commit) hold no manifest text at the revision.
    const m = /^100\d{3} blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(line);
    if (!m) continue;
    const path = m[3] as string;
    const named = explicit.has(path);
    const dir = named ? path : [...explicit].find((k) => k === '' || path.startsWith(`${k}/`));
    if (!named && (!isManifestName(path) || hiddenBelow(path, dir ?? ''))) continue;
    if (!named && dir !== undefined && skipped(path, dir)) continue;
    const entry = { oid: m[1] as string, path, size: Number(m[2]), searchOnly: dir === undefined };
    entries.push(entry);
    bytes += entry.size;
  }
  if (bytes > maxBytes || entries.length > maxFiles)
    throw new AppError(
      'USAGE',
      `--old-ref: the manifests at ${ref} hold ${bytes > maxBytes ? `${size(bytes)} in ` : ''}${entries.length} files, ` +
        `more than the ${bytes > maxBytes ? size(maxBytes) : `${maxFiles} files`} validate reads to find old versions; ` +
        'give the old manifests with --old PATH instead (e.g. rendered at the base revision)',
    );
  if (entries.length === 0) return [];
  const blobs = parseBatch(await git(['cat-file', '--batch'], top, entries.map((e) => `${e.oid}\n`).join('')));
  const realCwd = await realpath(cwd).catch(() => cwd);
  return entries.map((e, i) => ({
    file: `${ref}:${displayPath(resolve(top, e.path), realCwd)}`,
    text: (blobs[i] ?? Buffer.alloc(0)).toString('utf8'),
    ...(e.searchOnly ? { searchOnly: true } : {}),
  }));
}
