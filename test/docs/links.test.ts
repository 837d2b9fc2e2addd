// Every relative link and anchor in the documentation resolves: README.md, DEVELOPMENT.md, CONTRIBUTING.md,
// SECURITY.md, docs/ and every other Markdown page of the repository, anchors by GitHub's slug rules.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { anchors, docSection, githubSlug, links, markdownPages, readDoc } from '../helpers/docs.js';

const root = packageRoot();

/**
 * The links of one page that do not resolve: a path (relative to the page) that does not exist, or an anchor that
 * no heading of the target page gives. `read` returns a page's text by its path from the root.
 */
function brokenLinks(page: string, read: (path: string) => string, exists: (path: string) => boolean): string[] {
  const broken: string[] = [];
  for (const { target, line } of links(read(page))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // https:, mailto: and the like
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
    const where = `${page}:${line}: ${target}`;
    if (resolved.startsWith('..') || !exists(resolved)) {
      broken.push(`${where}: no such file ${resolved}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!resolved.endsWith('.md')) {
      broken.push(`${where}: an anchor into ${resolved}, which is not a Markdown page`);
    } else if (!anchors(read(resolved)).has(decodeURIComponent(anchor))) {
      broken.push(`${where}: no heading in ${resolved} gives the anchor #${anchor}`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  test("anchors follow GitHub's slug rules", () => {
    assert.equal(githubSlug('`hookkeeper validate`: manifests in CI'), 'hookkeeper-validate-manifests-in-ci');
    assert.equal(
      githubSlug('Child resources: ownerReferences and finalizers at admission'),
      'child-resources-ownerreferences-and-finalizers-at-admission',
    );
    assert.equal(
      githubSlug('What stays webhook-only, and every divergence'),
      'what-stays-webhook-only-and-every-divergence',
    );
    assert.equal(githubSlug('Failure policy: the **trade-off**'), 'failure-policy-the-trade-off');
    assert.equal(githubSlug('[Cluster API](cluster-api.md) Machines'), 'cluster-api-machines');
    assert.equal(githubSlug('HOOKKEEPER_E2E_MODES (1.36+)'), 'hookkeeper_e2e_modes-136');
    const page = '# Title\n\n## Install\n\n```yaml\n# not a heading\n```\n\n## Install\n\n### Install\n';
    assert.deepEqual([...anchors(page)], ['title', 'install', 'install-1', 'install-2']);
  });

  test('a broken path, a missing anchor and a link in code are told apart', () => {
    const pages: Record<string, string> = {
      'README.md':
        '# hookkeeper\n\n## Quick start\n\n[ok](#quick-start) [ok](docs/a.md#a-b) [dir](docs)\n' +
        '[gone](docs/missing.md) [no anchor](docs/a.md#nope) [self](#nope) [web](https://example.com/x#y)\n' +
        '`[code](nowhere.md)`\n\n```md\n[fenced](nowhere.md)\n```\n',
      'docs/a.md': '# A: b\n\n[up](../README.md#quick-start) [up](../README.md#quick-start-1)\n',
    };
    const exists = (p: string) => p in pages || p === 'docs';
    const read = (p: string) => pages[p] ?? assert.fail(`read ${p}`);
    assert.deepEqual(brokenLinks('README.md', read, exists), [
      'README.md:6: docs/missing.md: no such file docs/missing.md',
      'README.md:6: docs/a.md#nope: no heading in docs/a.md gives the anchor #nope',
      'README.md:6: #nope: no heading in README.md gives the anchor #nope',
    ]);
    assert.deepEqual(brokenLinks('docs/a.md', read, exists), [
      'docs/a.md:3: ../README.md#quick-start-1: no heading in README.md gives the anchor #quick-start-1',
    ]);
  });

  test('every relative link and anchor of every Markdown page resolves', () => {
    const pages = markdownPages();
    for (const required of ['README.md', 'DEVELOPMENT.md', 'CONTRIBUTING.md', 'SECURITY.md', 'docs/README.md']) {
      assert.ok(pages.includes(required), `${required} exists`);
    }
    const exists = (p: string) => existsSync(join(root, p)) && (statSync(join(root, p)).isFile() || !p.endsWith('.md'));
    const broken = pages.flatMap((page) => brokenLinks(page, readDoc, exists));
    assert.deepEqual(broken, []);
  });

  test('every page the README leads to, link by link, is in the npm package (package.json "files")', () => {
    const files = (JSON.parse(readDoc('package.json')) as { files: string[] }).files;
    // npm always packs README.md and LICENSE; "files" names the rest, as files or folders.
    const packed = (p: string) =>
      p === 'README.md' || p === 'LICENSE' || files.some((f) => p === f || p.startsWith(`${f}/`));
    const seen = new Set<string>();
    const queue = ['README.md'];
    for (let page = queue.shift(); page !== undefined; page = queue.shift()) {
      if (seen.has(page)) continue;
      seen.add(page);
      assert.ok(packed(page), `${page} is reachable from README.md by links but not packed`);
      if (!page.endsWith('.md')) continue;
      for (const { target } of links(readDoc(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        queue.push(normalize(join(dirname(page), decodeURIComponent(target.split('#')[0] ?? ''))));
      }
    }
    assert.ok(seen.has('docs/README.md') && seen.has('LICENSE'));
  });

  test('docs/README.md, the index, links every page of docs/', () => {
    const index = readDoc('docs/README.md');
    const linked = new Set(links(index).map((l) => l.target.split('#')[0]));
    const pages = markdownPages()
      .filter((p) => p.startsWith('docs/') && p !== 'docs/README.md')
      .map((p) => p.slice('docs/'.length));
    assert.ok(pages.length > 0);
    for (const p of pages) assert.ok(linked.has(p), `docs/README.md links ${p}`);
  });

  test('README.md stays a front door: at most 150 lines, and it links the index', () => {
    const readme = readDoc('README.md');
    assert.ok(readme.split('\n').length <= 151, `README.md has ${readme.split('\n').length - 1} lines`);
    assert.ok(
      links(readme).some((l) => l.target === 'docs/README.md'),
      'README.md links docs/README.md',
    );
    assert.ok(docSection('README.md', '## Quick start').includes('curl'));
  });
});
