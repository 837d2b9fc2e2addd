// The test tiers (test/tiers.ts): every test file of the repository is in exactly one, a new one lands in a tier by
// its directory, `npm test` runs every tier once, and DEVELOPMENT.md names each tier's files as the table does.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../src/compilers/deploy/render.js';
import { deal, entry } from '../scripts/test-tier.js';
import { assignTiers, TIERS, testFiles, tierFiles, type Tier } from './tiers.js';
import { docSection } from './helpers/docs.js';

const root = packageRoot();

/** A scratch repository holding `files` (empty), removed after `f`. */
function withTree(files: readonly string[], f: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-tiers-'));
  try {
    for (const file of files) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), '');
    }
    f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('every test file of the repository is in exactly one tier, and the tiers together are every test file', () => {
  const all = testFiles(root);
  assert.ok(all.length > 100, `${all.length} test files found`);
  const assigned = assignTiers(root);
  assert.deepEqual([...assigned.keys()], all);
  const union = TIERS.flatMap((t) => tierFiles(root, t.name));
  assert.deepEqual([...union].sort(), all, 'the tiers run every file, each once');
  for (const t of TIERS) assert.ok(tierFiles(root, t.name).length > 0, `tier ${t.name} has files`);
  // This file and the tier table's own check are in the fast loop.
  assert.equal(assigned.get('test/tiers.test.ts'), 'unit');
});

test('a new test file lands in the tier of its directory, unit by default; one no tier takes stops every tier', () => {
  withTree(
    [
      'test/new-area/x.test.ts',
      'test/new-area/deeper/y.test.ts',
      'test/lint/new-rule.test.ts',
      'test/fuzz/more.test.ts',
      'test/e2e/new-group.test.ts',
      'test/helpers/not-a-test.ts',
      'node_modules/dep/z.test.ts',
    ],
    (dir) => {
      assert.deepEqual(
        [...assignTiers(dir)],
        [
          ['test/e2e/new-group.test.ts', 'e2e'],
          ['test/fuzz/more.test.ts', 'fuzz'],
          ['test/lint/new-rule.test.ts', 'meta'],
          ['test/new-area/deeper/y.test.ts', 'unit'],
          ['test/new-area/x.test.ts', 'unit'],
        ],
      );
    },
  );
  for (const stray of ['src/core/x.test.ts', 'test/core/x.test.js', 'testing/y.test.mts']) {
    withTree(['test/core/a.test.ts', stray], (dir) => {
      assert.throws(() => tierFiles(dir, 'unit'), new RegExp(`${stray.replace(/\./g, '\\.')}: in no tier`));
    });
  }
});

test('two tiers claiming one file is an error, not a file run twice', () => {
  const overlapping: Tier[] = [...TIERS, { name: 'extra', files: ['test/lint/**/*.test.ts'] }];
  withTree(['test/lint/a.test.ts'], (dir) => {
    assert.throws(() => assignTiers(dir, overlapping), /test\/lint\/a\.test\.ts: in 2 tiers \(meta, extra/);
  });
  assert.throws(() => tierFiles(root, 'nonesuch'), /no test tier "nonesuch"/);
});

test("npm test runs each tier's script once, in the table's order, and each script runs its tier", () => {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const parts = [...(scripts['test'] ?? '').matchAll(/npm run (test:[\w-]+)/g)].map((m) => m[1]);
  assert.deepEqual(
    parts,
    TIERS.map((t) => `test:${t.name}`),
  );
  for (const t of TIERS) assert.equal(scripts[`test:${t.name}`], `node --import tsx scripts/test-tier.ts ${t.name}`);
});

test('an in-process tier deals its files to its processes, each file once, each inside a suite of its own', () => {
  const files = ['a', 'b', 'c', 'd', 'e'];
  assert.deepEqual(deal(files, 2), [
    ['a', 'c', 'e'],
    ['b', 'd'],
  ]);
  assert.deepEqual(deal(['a'], 2), [['a']]);
  const text = entry('/repo', ['test/x.test.ts']);
  assert.match(text, /describe\(file, \(\) => import\(url\)\)/);
  assert.match(text, /\["test\/x\.test\.ts","file:\/\/\/repo\/test\/x\.test\.ts"\]/);
});

test("DEVELOPMENT.md's tier table lists each tier in order, with its globs", () => {
  const section = docSection('DEVELOPMENT.md', '### Test tiers');
  const rows = [...section.matchAll(/^\| `npm run test:([\w-]+)` \| ([^|]*) \| ([^|]*) \|$/gm)];
  assert.deepEqual(
    rows.map((r) => r[1]),
    TIERS.map((t) => t.name),
  );
  for (const [i, t] of TIERS.entries()) {
    const globs = [...(rows[i]?.[2] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    assert.deepEqual(globs, t.files, `the globs of ${t.name}`);
  }
});
