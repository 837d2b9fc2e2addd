// What `validate` reads: files, directories (recursively, *.yaml, *.yml, *.json) and "-" for stdin, in a
// stable order so output and JUnit test names do not move between CI runs.
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { AppError, type Problem } from '../errors.js';
import { readLines } from '../lines.js';

export const STDIN = '-';
export const STDIN_NAME = '<stdin>';
export const MANIFEST_EXTENSIONS: readonly string[] = ['.yaml', '.yml', '.json'];

/**
 * The largest document (and line) `validate` reads: 3 MiB, the API server's limit on a request body (its
 * MaxRequestBodyBytes default), so no object it would accept is refused, and a runaway input is refused before
 * a parser spends memory on it. A List larger than this must be split into documents (kubectl reads them alike).
 */
export const MAX_DOCUMENT_BYTES = 3 * 1024 * 1024;

/** Files up to this size are read at once; larger ones, and what is not a regular file, line by line under the bound. */
export const READ_AT_ONCE_BYTES = 64 * 1024 * 1024;

export interface InputFile {
  /** As shown in output: relative to the working directory when inside it. */
  file: string;
  text: string;
  /**
   * Old manifests only: searched for old versions, but not the old set proper, so an object here that the inputs
   * lack is no deletion (--old-ref's files outside the given paths). What cannot be read here is noted, not fatal.
   */
  searchOnly?: boolean;
}

export function isManifestName(name: string): boolean {
  return MANIFEST_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext));
}

export function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? abs : rel;
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    // Hidden entries (.git, .github) hold no manifests to apply.
    if (e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    const isDir = e.isDirectory() || (e.isSymbolicLink() && (await stat(path)).isDirectory());
    if (isDir) await walk(path, out);
    else if (isManifestName(e.name)) out.push(path);
  }
}

/** Absolute file paths (or "-") for the given arguments; a file named explicitly is read whatever its extension. */
export async function expandPaths(paths: readonly string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  const problems: Problem[] = [];
  for (const p of paths) {
    if (p === STDIN) {
      out.push(STDIN);
      continue;
    }
    const abs = resolve(cwd, p);
    try {
      if ((await stat(abs)).isDirectory()) await walk(abs, out);
      else out.push(abs);
    } catch (err) {
      problems.push({
        file: p,
        message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      });
    }
  }
  if (problems.length > 0) throw new AppError('INPUT_INVALID', 'cannot read the inputs', { problems });
  return [...new Set(out)];
}

/**
 * A stream's text, refused (naming `name` and the line) at its first line longer than MAX_DOCUMENT_BYTES, which
 * is not buffered: reading stops there, so stdin, a pipe or a device cannot grow the process without bound.
 */
export async function readBounded(stream: NodeJS.ReadableStream, name: string): Promise<string> {
  const { lines } = await readLines(stream, MAX_DOCUMENT_BYTES, { stopAtLongLine: true });
  const long = lines.indexOf(null);
  if (long !== -1) {
    const message = `line ${long + 1} is longer than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB, more than the API server accepts in one request`;
    throw new AppError('INPUT_INVALID', 'cannot read the inputs', {
      problems: [{ file: name, line: long + 1, message }],
    });
  }
  return lines.join('\n');
}

function readFile(path: string, name: string): string | Promise<string> {
  const st = statSync(path);
  return st.isFile() && st.size <= READ_AT_ONCE_BYTES
    ? readFileSync(path, 'utf8')
    : readBounded(createReadStream(path), name);
}

/**
 * Reads every input; `readStdin` is called at most once, for "-". Files are read one by one, synchronously: the
 * command has nothing else to do meanwhile, and for many small manifests the promise API's round trips through
 * the thread pool (open, stat, read, close) cost more than the reading (BENCHMARKS.md).
 */
export async function readInputs(
  paths: readonly string[],
  options: { cwd: string; readStdin: () => Promise<string> },
): Promise<InputFile[]> {
  if (paths.filter((p) => p === STDIN).length > 1) throw new AppError('USAGE', '"-" (stdin) can be given once');
  const files = await expandPaths(paths, options.cwd);
  const out: InputFile[] = [];
  for (const f of files) {
    const file = f === STDIN ? STDIN_NAME : displayPath(f, options.cwd);
    out.push({ file, text: f === STDIN ? await options.readStdin() : await readFile(f, file) });
  }
  return out;
}
