// Which tier (npm script) runs each test file, by directory: the one table scripts/test-tier.ts runs from and
// test/tiers.test.ts checks. Unit is the default, so a new file under test/ lands there unless a tier claims its
// directory; a test file no tier can take (outside test/, or not TypeScript) stops every tier rather than being skipped.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { minimatch } from 'minimatch';

export interface Tier {
  /** `npm run test:<name>` runs it. */
  readonly name: string;
  /** Globs over paths relative to the repository root; unit's is the rest of test/, after every other tier. */
  readonly files: readonly string[];
  /** Test files at once (node --test's --test-concurrency); unset, node's default. */
  readonly concurrency?: number;
  /** Run the files in this many processes, each importing its share (no tsx start-up per file). */
  readonly inProcess?: number;
}

/** Every tier, in the order `npm test` runs them. */
export const TIERS: readonly Tier[] = [
  {
    name: 'unit',
    files: ['test/**/*.test.ts'],
    inProcess: 2,
  },
  {
    name: 'fuzz',
    files: ['test/fuzz/**/*.test.ts'],
  },
  {
    name: 'meta',
    files: ['test/lint/**/*.test.ts', 'test/extension/**/*.test.ts'],
  },
  { name: 'package', files: ['test/package/**/*.test.ts'], concurrency: 1 },
  { name: 'hardening', files: ['test/hardening/**/*.test.ts'] },
  { name: 'e2e', files: ['test/e2e/**/*.test.ts'], concurrency: 1 },
  { name: 'image', files: ['test/image/**/*.test.ts'] },
];

/** The default tier: it takes what its globs match and no other tier does. */
export const DEFAULT_TIER = 'unit';

/** Not searched for test files: dependencies, build output, git. */
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage']);

/** Anything a test runner might take for a test file, so one in an odd place is reported, not ignored. */
const TEST_FILE = /\.test\.[cm]?[jt]sx?$/;

/** Every test file of the repository, relative to `root`, sorted. */
export function testFiles(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir === '' ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory() && !SKIP.has(e.name)) out.push(...testFiles(root, rel));
    else if (e.isFile() && TEST_FILE.test(e.name)) out.push(rel);
  }
  return out.sort();
}

/** The tier of each test file; throws on a file no tier or two tiers take. */
export function assignTiers(root: string, tiers: readonly Tier[] = TIERS): Map<string, string> {
  const out = new Map<string, string>();
  const problems: string[] = [];
  for (const file of testFiles(root)) {
    const claims = tiers.filter((t) => t.name !== DEFAULT_TIER && t.files.some((g) => minimatch(file, g)));
    const fallback = tiers.find((t) => t.name === DEFAULT_TIER && t.files.some((g) => minimatch(file, g)));
    const names = claims.length > 0 ? claims.map((t) => t.name) : fallback ? [fallback.name] : [];
    if (names.length === 1) out.set(file, names[0] as string);
    else if (names.length === 0) problems.push(`${file}: in no tier (test/tiers.ts)`);
    else problems.push(`${file}: in ${names.length} tiers (${names.join(', ')}; test/tiers.ts)`);
  }
  if (problems.length > 0) throw new Error(`test files without exactly one tier:\n${problems.join('\n')}`);
  return out;
}

/** The files of one tier, sorted. */
export function tierFiles(root: string, name: string, tiers: readonly Tier[] = TIERS): string[] {
  if (!tiers.some((t) => t.name === name)) throw new Error(`no test tier ${JSON.stringify(name)} (test/tiers.ts)`);
  return [...assignTiers(root, tiers)].filter(([, t]) => t === name).map(([f]) => f);
}
