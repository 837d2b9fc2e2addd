// What DEVELOPMENT.md and the README restate of the code, held to it: the order `npm test` runs its parts in
// (package.json's `test` script), the output formats each transport's registry has, and the src/kube table.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/deploy/render.js';
import { TEST_FORMATS } from '../../src/policy-test/formats.js';
import { VALIDATE_FORMATS } from '../../src/validate/formats.js';
import { readDoc } from '../helpers/docs.js';

const root = packageRoot();

/** The npm scripts `npm test` runs, in order. */
function testParts(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return [...(pkg.scripts['test'] ?? '').matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1] ?? '');
}

/** How each page names a part of `npm test`. */
const NAMES: Record<string, { development: string; readme: RegExp }> = {
  lint: { development: 'lint', readme: /\blint\b/ },
  typecheck: { development: 'typecheck', readme: /\btypecheck\b/ },
  'test:unit': { development: 'unit', readme: /\bunit\b/ },
  'test:fuzz': { development: 'fuzz', readme: /the differential fuzzer at full size/ },
  'test:meta': { development: 'meta', readme: /adding a rule to a\s+copy/ },
  'test:package': { development: 'package', readme: /the packed package/ },
  'test:hardening': { development: 'hardening', readme: /\bhardening\b/ },
  'test:e2e': { development: 'end-to-end', readme: /the end-to-end suite/ },
  'test:image': { development: 'container image', readme: /the image\./ },
};

test("DEVELOPMENT.md and the README list npm test's parts in the order package.json runs them", () => {
  const parts = testParts();
  assert.ok(parts.length > 0);
  for (const p of parts) assert.ok(NAMES[p], `npm test runs ${p}: say how the docs name it here`);
  const row = /^\| `npm test` \| all of the above in order: (.*) \|$/m.exec(readDoc('DEVELOPMENT.md'));
  assert.ok(row, "DEVELOPMENT.md's command table has the npm test row");
  assert.deepEqual(
    (row[1] ?? '').split(', '),
    parts.map((p) => NAMES[p]?.development),
  );
  const readme = /`npm test` runs every test: ([\s\S]*?\.)\n/.exec(readDoc('README.md'))?.[1] ?? '';
  let at = 0;
  for (const p of parts) {
    const found = (NAMES[p]?.readme as RegExp).exec(readme.slice(at));
    assert.ok(found, `the README's npm test sentence names ${p} after the parts before it`);
    at += found.index + found[0].length;
  }
});

test("DEVELOPMENT.md's layout names every output format of validate's and test's registries", () => {
  const layout = readDoc('DEVELOPMENT.md');
  const formats = (dir: string): string[] => {
    const m = new RegExp(`^  ${dir}/ +transport:[\\s\\S]*?output formats \\(formats\\.ts\\): ([^\\n]*)`, 'm').exec(
      layout,
    );
    assert.ok(m, `the layout describes ${dir}/ and its formats`);
    return (m[1] ?? '')
      .replace(/[;,]? ?reports$/, '')
      .split(', ')
      .map((f) => f.toLowerCase());
  };
  assert.deepEqual(formats('validate').sort(), Object.keys(VALIDATE_FORMATS).sort());
  assert.deepEqual(formats('policy-test').sort(), Object.keys(TEST_FORMATS).sort());
});

test("DEVELOPMENT.md's src/kube table has a row for every file there, and none for a file that is not", () => {
  const section = readDoc('DEVELOPMENT.md').split('The cluster layer, `src/kube/`')[1] ?? '';
  const rows = [...section.split('\n\n')[1]!.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] ?? '');
  const files = readdirSync(join(root, 'src', 'kube')).filter((f) => f.endsWith('.ts'));
  assert.deepEqual([...rows].sort(), files.sort());
});
