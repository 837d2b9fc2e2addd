// The version has one source, package.json: the CLI reads it (under tsx and once built), and Chart.yaml, the base's
// image tag and labels, and the docs' examples carry it (`npm run render:kustomize` writes the chart and the base).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { AppError } from '../../src/errors.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { readVersion } from '../../src/infrastructure/version.js';
import { chartYamlFor } from '../../scripts/render-kustomize.js';
import { readDoc } from '../helpers/docs.js';

const root = packageRoot();
const read = (file: string): string => readFileSync(join(root, file), 'utf8');
const version = (JSON.parse(read('package.json')) as { version: string }).version;

test("Chart.yaml version and appVersion are package.json's (else: npm run render:kustomize)", () => {
  const text = read('charts/hookkeeper/Chart.yaml');
  const chart = parse(text) as { version: string; appVersion: string };
  assert.deepEqual(
    [chart.version, chart.appVersion],
    [version, version],
    `charts/hookkeeper/Chart.yaml says ${chart.version}/${chart.appVersion}, package.json ${version}: run npm run render:kustomize`,
  );
  assert.equal(text, chartYamlFor(text, version));
});

test("the base's image tag and version labels are package.json's version (else: npm run render:kustomize)", () => {
  const deployment = parse(read('webhook-config/base/deployment.yaml')) as {
    metadata: { labels: Record<string, string> };
    spec: { template: { spec: { containers: { image: string }[] } } };
  };
  assert.equal(
    deployment.spec.template.spec.containers[0]?.image,
    `registry.invalid/hookkeeper:${version}`,
    'run npm run render:kustomize',
  );
  assert.equal(deployment.metadata.labels['app.kubernetes.io/version'], version, 'run npm run render:kustomize');
});

test("every image tag and version the docs show is package.json's", () => {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
  for (const file of ['README.md', 'SECURITY.md', ...docs.map((f) => `docs/${f}`)]) {
    const text = readDoc(file);
    const shown = [...text.matchAll(/hookkeeper:(\d+\.\d+\.\d+)\b|the version is (\d+\.\d+\.\d+)/g)].map(
      (m) => m[1] ?? m[2],
    );
    for (const v of shown) assert.equal(v, version, `${file} shows version ${v}; package.json says ${version}`);
  }
});

test('the CLI prints the version of the package.json beside it, not one of its own', (t) => {
  // A copy of src/ under a package.json with another version: the CLI must follow the file.
  const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-version-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const pkg = JSON.parse(read('package.json')) as Record<string, unknown>;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version: '9.8.7' }));
  for (const [args, out] of [
    [['--version'], '9.8.7\n'],
    [['version'], 'hookkeeper 9.8.7\n'],
  ] as const) {
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/transports/cli/main.ts', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(res.stderr, '', args.join(' '));
    assert.equal(res.stdout, out, args.join(' '));
  }
});

test("a package.json that is missing, not JSON, not hookkeeper's or without a version: an error saying so", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookkeeper-version-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'package.json');
  const url = pathToFileURL(file);
  const fails = (text: string | undefined, message: RegExp): void => {
    if (text === undefined) rmSync(file, { force: true });
    else writeFileSync(file, text);
    assert.throws(
      () => readVersion(url),
      (err: unknown) => err instanceof AppError && message.test(err.message) && err.message.includes(file),
    );
  };
  fails(undefined, /cannot tell hookkeeper's version: .* cannot be read as JSON \(.*ENOENT.*\); reinstall hookkeeper/);
  fails('{', /cannot be read as JSON/);
  fails('{"name": "other", "version": "1.0.0"}', /is not hookkeeper's package.json \(name "other"\)/);
  fails('{"name": "hookkeeper"}', /has no semantic version \(version undefined\)/);
  fails('{"name": "hookkeeper", "version": "one"}', /has no semantic version \(version "one"\)/);
  writeFileSync(file, '{"name": "hookkeeper", "version": "1.2.3-rc.1"}');
  assert.equal(readVersion(url), '1.2.3-rc.1');
});
