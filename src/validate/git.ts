// `validate --old-ref REF`: the same input paths as they were at a git revision, so a pull request is judged
// as the UPDATE it will be. Two git processes whatever the number of files: ls-tree, then one cat-file --batch.
import { spawn } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError } from '../errors.js';
import { displayPath, isManifestName, STDIN, type InputFile } from './inputs.js';

function git(args: readonly string[], cwd: string, input?: string): Promise<Buffer> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
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

/**
 * The files under `paths` (as given on the command line) at `ref`: a directory contributes its manifest files
 * (as expandPaths does in the working tree), a file itself; paths absent at `ref` contribute nothing. File
 * names are shown as "REF:path".
 */
export async function readAtRef(ref: string, paths: readonly string[], cwd: string): Promise<InputFile[]> {
  const top = await gitToplevel(cwd);
  try {
    await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], top);
  } catch {
    throw new AppError('USAGE', `--old-ref: ${JSON.stringify(ref)} is not a commit in ${top}`);
  }
  const explicit = new Map<string, string>();
  for (const p of paths.filter((x) => x !== STDIN)) {
    // The working tree may be reached through a symlink; git reports the real path of the top level.
    const abs = resolve(cwd, p);
    const real = await realpath(abs).catch(() => abs);
    const rel = relative(top, real);
    if (rel.startsWith('..') || isAbsolute(rel))
      throw new AppError('USAGE', `--old-ref: ${p} is outside the git repository ${top}`);
    explicit.set(rel.split(sep).join('/'), abs);
  }
  if (explicit.size === 0) return [];
  const listing = (
    await git(['ls-tree', '-r', '-z', ref, '--', ...[...explicit.keys()].map((r) => (r === '' ? '.' : r))], top)
  ).toString();
  const entries: Array<{ oid: string; path: string }> = [];
  for (const line of listing.split('\0')) {
    const m = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(line);
    if (!m) continue;
    const path = m[2] as string;
    if (explicit.has(path)) {
      entries.push({ oid: m[1] as string, path });
      continue;
    }
    // Below a named directory, hidden entries are skipped as in the working tree.
    const dir = [...explicit.keys()].find((k) => k === '' || path.startsWith(`${k}/`)) ?? '';
    const hidden = path
      .slice(dir.length)
      .split('/')
      .some((part) => part.startsWith('.'));
    if (isManifestName(path) && !hidden) entries.push({ oid: m[1] as string, path });
  }
  if (entries.length === 0) return [];
  const blobs = parseBatch(await git(['cat-file', '--batch'], top, entries.map((e) => `${e.oid}\n`).join('')));
  const realCwd = await realpath(cwd).catch(() => cwd);
  return entries.map((e, i) => ({
    file: `${ref}:${displayPath(resolve(top, e.path), realCwd)}`,
    text: (blobs[i] ?? Buffer.alloc(0)).toString('utf8'),
  }));
}
