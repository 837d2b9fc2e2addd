// `npm run test:<tier>`: runs one tier of test/tiers.ts with node's test runner. A tier with `inProcess` runs its
// files in that many processes, each importing its share, every file inside a suite named by its path (its own
// before/after hooks stay its own): tsx starts once per process rather than once per file. Other arguments (say
// --test-name-pattern=...) are passed to node --test.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../src/compilers/deploy/render.js';
import { TIERS, tierFiles, type Tier } from '../test/tiers.js';

/** One entry file's text: each file imported inside a suite of its own. */
export function entry(root: string, files: readonly string[]): string {
  const urls = files.map((f) => [f, pathToFileURL(join(root, f)).href]);
  return [
    "import { describe } from 'node:test';",
    `for (const [file, url] of ${JSON.stringify(urls)}) describe(file, () => import(url));`,
    '',
  ].join('\n');
}

/** `files` dealt into `n` shares, in turn (neighbouring files are often alike in cost). */
export function deal<T>(files: readonly T[], n: number): T[][] {
  const shares: T[][] = Array.from({ length: n }, () => []);
  files.forEach((f, i) => shares[i % n]?.push(f));
  return shares.filter((s) => s.length > 0);
}

async function main(name: string | undefined, extra: string[]): Promise<number> {
  const tier = TIERS.find((t: Tier) => t.name === name);
  if (!tier) throw new Error(`usage: test-tier.ts <${TIERS.map((t) => t.name).join('|')}> [node --test options]`);
  const root = packageRoot();
  const files = tierFiles(root, tier.name);
  // node --test with no files would look for tests itself.
  if (files.length === 0) throw new Error(`test tier ${tier.name} has no test files (test/tiers.ts)`);
  const args = ['--import', 'tsx', '--test', '--test-reporter=spec'];
  let scratch: string | undefined;
  let targets = files;
  if (tier.inProcess !== undefined) {
    scratch = mkdtempSync(join(tmpdir(), `hookkeeper-${tier.name}-`));
    const shares = deal(files, tier.inProcess);
    // Named *.test.mjs so test/helpers/gc-pressure.js (CI's forced collection) takes them for test processes.
    targets = shares.map((share, i) => {
      const path = join(scratch as string, `${tier.name}-${i + 1}-of-${shares.length}.test.mjs`);
      writeFileSync(path, entry(root, share));
      return path;
    });
    args.push(`--test-concurrency=${shares.length}`);
  } else if (tier.concurrency !== undefined) {
    args.push(`--test-concurrency=${tier.concurrency}`);
  }
  try {
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [...args, ...extra, ...targets], { cwd: root, stdio: 'inherit' });
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2], process.argv.slice(3)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
