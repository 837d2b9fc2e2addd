// Which test files `hookkeeper test PATH...` runs: a file named on the command line whatever its name, and under a
// directory every *.hookkeeper-test.yaml (or .yml), hidden entries and symlinked directories skipped, in name order.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AppError } from '../../errors.js';
import { TEST_FILE_SUFFIXES } from './schema.js';

const isTestFile = (name: string): boolean => TEST_FILE_SUFFIXES.some((s) => name.endsWith(s));

/** The reason in a file system error's message, without its code and the absolute path it names. */
export function fsReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^E[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
}

async function walk(dir: string, cwd: string, out: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(resolve(cwd, dir), { withFileTypes: true });
  } catch (err) {
    throw new AppError('INPUT_INVALID', `cannot read ${dir}: ${fsReason(err)}`, { cause: err });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) await walk(path, cwd, out);
    // A symlinked file counts; a symlinked directory is not followed (no loops).
    else if (isTestFile(e.name) && (e.isFile() || (e.isSymbolicLink() && (await isFile(resolve(cwd, path))))))
      out.push(path);
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The test files to run, as the user would name them (relative to cwd when the path given was). */
export async function findTestFiles(paths: readonly string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = (await stat(resolve(cwd, path))).isDirectory();
    } catch (err) {
      throw new AppError('INPUT_INVALID', `cannot read ${path}: ${fsReason(err)}`, { cause: err });
    }
    if (!isDir) {
      out.push(path);
      continue;
    }
    const found: string[] = [];
    await walk(path, cwd, found);
    if (found.length === 0)
      throw new AppError(
        'INPUT_INVALID',
        `no test files (${TEST_FILE_SUFFIXES.map((s) => `*${s}`).join(' or ')}) under ${path}`,
      );
    out.push(...found);
  }
  return [...new Set(out)];
}
