// What DEVELOPMENT.md and the README restate of the code, held to it: the order `npm test` runs its parts in
// (package.json's `test` script), the output formats each transport's registry has, the annotated tree of the
// repository and the src/infrastructure/kube table.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { TEST_FORMATS } from '../../src/transports/policy-test/formats.js';
import { VALIDATE_FORMATS } from '../../src/transports/validate/formats.js';
import { docSection, readDoc } from '../helpers/docs.js';

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
    const m = new RegExp(`^    ${dir}/ +[\\s\\S]*?output formats \\(formats\\.ts\\): ([^\\n]*)`, 'm').exec(layout);
    assert.ok(m, `the layout describes ${dir}/ and its formats`);
    return (m[1] ?? '')
      .replace(/[;,]? ?reports$/, '')
      .split(', ')
      .map((f) => f.toLowerCase());
  };
  assert.deepEqual(formats('validate').sort(), Object.keys(VALIDATE_FORMATS).sort());
  assert.deepEqual(formats('policy-test').sort(), Object.keys(TEST_FORMATS).sort());
});

test("DEVELOPMENT.md's src/infrastructure/kube table has a row for every file there, and none for a file that is not", () => {
  const section = readDoc('DEVELOPMENT.md').split('The cluster layer, `src/infrastructure/kube/`')[1] ?? '';
  const rows = [...section.split('\n\n')[1]!.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] ?? '');
  const files = readdirSync(join(root, 'src', 'infrastructure', 'kube')).filter((f) => f.endsWith('.ts'));
  assert.deepEqual([...rows].sort(), files.sort());
});

/**
 * The paths DEVELOPMENT.md's annotated tree names ("src/rules/", "src/errors.ts"): an entry at two spaces per level,
 * its description on its line and the deeper-indented lines after it; the names after ";  " in a description are its
 * siblings, and a "mirrors" description's parenthesised folders ("(admission/ audit/)") its children.
 */
function treePaths(): Set<string> {
  const block = /^```\n([\s\S]*?)^```$/m.exec(docSection('DEVELOPMENT.md', '## Layout and layering'))?.[1];
  assert.ok(block, "DEVELOPMENT.md's layout section has the annotated tree");
  const entries: Array<{ depth: number; name: string; text: string }> = [];
  for (const line of block.split('\n')) {
    const m = /^((?: {2}){0,2})(\S+)(?: |$)/.exec(line);
    if (m) entries.push({ depth: (m[1] ?? '').length / 2, name: m[2] ?? '', text: line });
    else if (entries.length > 0) (entries.at(-1) as { text: string }).text += ` ${line.trim()}`;
  }
  const out = new Set<string>();
  const parents: string[] = [];
  for (const { depth, name, text } of entries) {
    parents.length = depth;
    const at = parents.join('');
    for (const n of [name, ...[...text.matchAll(/; {2}(\S+) {2}/g)].map((s) => s[1] ?? '')]) out.add(at + n);
    if (text.includes('mirrors'))
      for (const group of text.matchAll(/\(((?:[\w-]+\/ ?)+)\)/g))
        for (const child of (group[1] ?? '').trim().split(' ')) out.add(at + name + child);
    parents.push(name);
  }
  return out;
}

/** What a directory holds, as the tree names it: directories with a trailing "/"; files too when `files`. */
function entries(dir: string, files: boolean): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() || (files && e.isFile()))
    .map((e) => `${dir}${e.name}${e.isDirectory() ? '/' : ''}`)
    .sort();
}

test("DEVELOPMENT.md's annotated tree names every folder of src/, its layers' folders, test/'s, and src/'s files", () => {
  const tree = treePaths();
  const named = (dir: string, files: boolean): string[] =>
    [...tree]
      .filter((p) => p.startsWith(dir) && /^[^/]+\/?$/.test(p.slice(dir.length)) && (files || p.endsWith('/')))
      .sort();
  assert.deepEqual(named('src/', true), entries('src/', true));
  assert.deepEqual(named('src/core/', false), entries('src/core/', false));
  for (const layer of ['src/transports/', 'src/infrastructure/', 'src/compilers/'])
    assert.deepEqual(named(layer, true), entries(layer, true));
  assert.deepEqual(named('test/', false), entries('test/', false));
  // The top level: every folder git keeps there (hidden ones aside), and every file the tree names exists.
  const top = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !['node_modules', 'dist', 'coverage'].includes(e.name))
    .map((e) => `${e.name}/`)
    .sort();
  assert.deepEqual([...tree].filter((p) => /^[^/]+\/$/.test(p)).sort(), top);
  for (const p of tree) assert.ok(existsSync(join(root, p)), `DEVELOPMENT.md's tree names ${p}, which is not there`);
});
