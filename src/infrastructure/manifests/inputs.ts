// The files a command reads manifests from (`validate`, `explain -f`): files, directories (recursively, *.yaml, *.yml,
// *.json) and "-" for stdin, in a stable order so output and JUnit test names do not move between CI runs.
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { minimatch } from 'minimatch';
import { AppError, type Problem } from '../../errors.js';
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
  /**
   * Found by walking a directory, not named: a file there that holds no Kubernetes object (package.json, a
   * kustomization) is another tool's, skipped with a note; a named file or stdin is meant as manifests.
   */
  walked?: boolean;
}

export function isManifestName(name: string): boolean {
  return MANIFEST_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext));
}

export function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? abs : rel;
}

/**
 * Whether a path inside a walked directory is left out by --exclude: `rel` is relative to the directory given on the
 * command line, with "/" separators. A pattern without "/" matches a name at any depth (minimatch's matchBase), as
 * in .gitignore; a directory is matched with and without its trailing "/", so `charts` and `charts/**` both skip it.
 */
export function isExcluded(rel: string, exclude: readonly string[], isDir = false): boolean {
  return excludedBy(rel, exclude, isDir) !== undefined;
}

/** The first --exclude pattern that leaves `rel` out (as isExcluded matches), if any. */
function excludedBy(rel: string, exclude: readonly string[], isDir: boolean): string | undefined {
  return exclude.find(
    (glob) => minimatch(rel, glob, { matchBase: true }) || (isDir && minimatch(`${rel}/`, glob, { matchBase: true })),
  );
}

/** The note for a Helm chart's directory, which `validate` does not read: its templates are not manifests. */
export function chartNote(dir: string): string {
  return `${dir}: a Helm chart (Chart.yaml), not read: its templates are not manifests; judge it rendered (--render "helm template ${dir}", at both revisions with --old-ref)`;
}

/** What a walk found: manifest files, plus what it could not read (exit 2) and what it skipped on purpose. */
export interface Expanded {
  paths: string[];
  /** The paths found by walking a directory (InputFile.walked). */
  walked: Set<string>;
  problems: Problem[];
  notes: string[];
}

function errno(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

function cannotRead(display: string, err: unknown): Problem {
  const code = errno(err);
  return {
    file: display,
    message: code === 'ELOOP' ? 'cannot read: a symbolic link loop (ELOOP)' : `cannot read: ${code}`,
  };
}

interface Walk {
  top: string;
  cwd: string;
  exclude: readonly string[];
  out: Expanded;
  /** Real paths of the directories being walked, to catch a symbolic link back to one of them. */
  ancestors: Set<string>;
  /** The --exclude patterns that left something out, so that one that matched nothing can be named. */
  used: Set<string>;
  /** The real path of `top`: a symbolic link is followed only to somewhere below it. */
  topReal: string;
}

/** Whether `path` is `dir` or below it (both real paths). */
function within(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

async function walk(dir: string, w: Walk): Promise<void> {
  const display = displayPath(dir, w.cwd);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    w.out.problems.push(cannotRead(display, err));
    return;
  }
  if (entries.some((e) => e.name === 'Chart.yaml' && !e.isDirectory())) {
    w.out.notes.push(chartNote(display));
    return;
  }
  const real = await realpath(dir).catch(() => dir);
  w.ancestors.add(real);
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    // Hidden entries (.git, .github) hold no manifests to apply.
    if (e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    const rel = relative(w.top, path).split(sep).join('/');
    // A link is matched before it is followed: an excluded loop is not read, so not reported.
    const by = w.exclude.length > 0 ? excludedBy(rel, w.exclude, e.isDirectory() || e.isSymbolicLink()) : undefined;
    if (by !== undefined) {
      w.used.add(by);
      continue;
    }
    let isDir = e.isDirectory();
    let isFile = e.isFile();
    if (e.isSymbolicLink()) {
      let target: string;
      try {
        const st = await stat(path);
        isDir = st.isDirectory();
        isFile = st.isFile();
        target = await realpath(path);
      } catch (err) {
        // A loop is named whatever its name; a dangling link only where a manifest was meant (not a README).
        if (errno(err) !== 'ENOENT' || isManifestName(e.name))
          w.out.problems.push(cannotRead(displayPath(path, w.cwd), err));
        continue;
      }
      // A checkout's link may point anywhere on the machine that runs the gate: only into the directory given.
      if (!within(w.topReal, target)) {
        if (isDir || isManifestName(e.name))
          w.out.notes.push(
            `${displayPath(path, w.cwd)}: a symbolic link that leads out of ${displayPath(w.top, w.cwd)}, not read`,
          );
        continue;
      }
    }
    if (isDir) {
      const target = await realpath(path).catch(() => path);
      if (w.ancestors.has(target)) {
        w.out.problems.push({
          file: displayPath(path, w.cwd),
          message: `cannot read: a symbolic link loop (it leads back to ${displayPath(target, w.cwd)})`,
        });
        continue;
      }
      await walk(path, w);
    } else if (isManifestName(e.name) && !isFile) {
      // Opening a FIFO waits for a writer that never comes; a device or a socket is no manifest either.
      w.out.problems.push({ file: displayPath(path, w.cwd), message: 'cannot read: not a regular file (not opened)' });
    } else if (isManifestName(e.name)) {
      w.out.paths.push(path);
      w.out.walked.add(path);
    }
  }
  w.ancestors.delete(real);
}

/**
 * Absolute file paths (or "-") for the given arguments; a file named explicitly is read whatever its extension and
 * whatever --exclude says. What cannot be read is a problem, reported beside the results of the rest.
 */
export async function expandPaths(
  paths: readonly string[],
  cwd: string,
  exclude: readonly string[] = [],
): Promise<Expanded> {
  const out: Expanded = { paths: [], walked: new Set(), problems: [], notes: [] };
  const used = new Set<string>();
  let walkedAny = false;
  for (const p of paths) {
    if (p === STDIN) {
      out.paths.push(STDIN);
      continue;
    }
    const abs = resolve(cwd, p);
    try {
      if ((await stat(abs)).isDirectory()) {
        walkedAny = true;
        const topReal = await realpath(abs).catch(() => abs);
        await walk(abs, { top: abs, cwd, exclude, out, ancestors: new Set(), used, topReal });
      } else out.paths.push(abs);
    } catch (err) {
      out.problems.push(cannotRead(p, err));
    }
  }
  // A named file is read whatever --exclude says, so a pattern is judged only against the directories walked.
  if (walkedAny)
    for (const glob of exclude.filter((g) => !used.has(g)))
      out.notes.push(`--exclude ${JSON.stringify(glob)} matched nothing in the directories given`);
  out.paths = [...new Set(out.paths)];
  // A file named as well as walked is named: meant as manifests.
  for (const p of paths) if (p !== STDIN) out.walked.delete(resolve(cwd, p));
  return out;
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

/** The inputs read, what could not be read (each named, reported beside the results of the rest), and what was skipped. */
export interface Inputs {
  files: InputFile[];
  problems: Problem[];
  notes: string[];
}

/**
 * Reads every input; `readStdin` is called at most once, for "-". Files are read one by one, synchronously: the
 * command has nothing else to do meanwhile, and for many small manifests the promise API's round trips through
 * the thread pool (open, stat, read, close) cost more than the reading (BENCHMARKS.md).
 */
export async function readInputs(
  paths: readonly string[],
  options: { cwd: string; readStdin: () => Promise<string>; exclude?: readonly string[] },
): Promise<Inputs> {
  if (paths.filter((p) => p === STDIN).length > 1) throw new AppError('USAGE', '"-" (stdin) can be given once');
  const found = await expandPaths(paths, options.cwd, options.exclude);
  const files: InputFile[] = [];
  for (const f of found.paths) {
    const file = f === STDIN ? STDIN_NAME : displayPath(f, options.cwd);
    try {
      const text = f === STDIN ? await options.readStdin() : await readFile(f, file);
      files.push({ file, text, ...(found.walked.has(f) ? { walked: true } : {}) });
    } catch (err) {
      if (err instanceof AppError) found.problems.push(...err.problems);
      else found.problems.push(cannotRead(file, err));
    }
  }
  return { files, problems: found.problems, notes: found.notes };
}
