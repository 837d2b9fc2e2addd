// The npm tarball as a user's CI installs it without any publishing: `npm pack` here, then
// `npm install -g ./hookkeeper-*.tgz` under a temporary prefix in a directory outside the repository, and
// `hookkeeper validate` there (docs/ci.md). Dependencies come from the npm cache when it holds their metadata
// (`--offline`); an `npm ci` cache holds the tarballs only, so otherwise the registry answers for the metadata
// (`--prefer-offline`), and without a registry the install is skipped, saying why (a failure under CI=true).
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { CI_CASES, writeCiManifests } from '../fixtures/ci-manifests.js';

const root = packageRoot();
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

/** npm without the npm_* variables of an `npm run` that started this test (they would set its prefix and more). */
function npm(args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return spawnSync('npm', [...args], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

let work: string;
let tarball: string;
let packed: string[];

before(() => {
  work = mkdtempSync(join(tmpdir(), 'hookkeeper-pack-'));
  // prepack builds dist/ first, and drops `prepare` from the packed manifest (scripts/pack-manifest.js).
  const res = npm(['pack', '--json', '--pack-destination', work], root);
  assert.equal(res.status, 0, `npm pack:\n${res.stderr}`);
  const [info] = JSON.parse(res.stdout.slice(res.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  assert.ok(info);
  tarball = join(work, info.filename);
  packed = info.files.map((f) => f.path);
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds what the CLI runs on, and no tests, sources or chart', () => {
  for (const needed of [
    'package.json',
    'LICENSE',
    'README.md',
    'bin/hookkeeper.js',
    'bin/kubectl-hookkeeper',
    'dist/transports/cli/main.js',
    'dist/infrastructure/version.js',
    // `webhook-config render` reads the base's webhook configurations.
    'webhook-config/base/validating-webhook-configuration.yaml',
    'webhook-config/base/mutating-webhook-configuration.yaml',
  ])
    assert.ok(packed.includes(needed), `${needed} is not in the tarball`);
  assert.deepEqual(
    packed.filter((f) => /^(test|src|scripts|bench|charts)\//.test(f) || /\.test\.|\.ts$/.test(f)),
    [],
    'tests, sources, scripts or the chart in the tarball (package.json "files")',
  );
  // A stale file of an older build would ship too: every module comes from a source file that exists now.
  assert.deepEqual(
    packed.filter(
      (f) => /^dist\/.*\.js$/.test(f) && !existsSync(join(root, f.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))),
    ),
    [],
    'dist/ holds modules no source builds: remove dist/ and run npm run build',
  );
});

test('the packed manifest has no install script for npm to warn about, and the checkout keeps its own', () => {
  const read = spawnSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' });
  assert.equal(read.status, 0, read.stderr);
  const scripts = (JSON.parse(read.stdout) as { scripts: Record<string, string> }).scripts;
  for (const event of ['preinstall', 'install', 'postinstall', 'prepare'])
    assert.equal(scripts[event], undefined, `the tarball's package.json runs ${event}`);
  const own = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  assert.ok(own['prepare'], "postpack puts the checkout's prepare back");
});

test('only an install from git bundles the dependencies: the tarball leaves them to npm', () => {
  const read = spawnSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' });
  assert.equal(read.status, 0, read.stderr);
  assert.equal((JSON.parse(read.stdout) as { bundleDependencies?: unknown }).bundleDependencies, undefined);
  assert.deepEqual(
    packed.filter((f) => f.startsWith('node_modules/')),
    [],
  );
  // scripts/prepare.js: without the bundle, pre-commit's `npm install -g git+file://…` races itself.
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bundleDependencies?: unknown };
  assert.equal(own.bundleDependencies, true, "postpack puts the checkout's bundleDependencies back");
});

test('npm install -g of the tarball, outside the repository, gives a hookkeeper that gates CI', (t) => {
  const prefix = join(work, 'prefix');
  const install = (mode: '--offline' | '--prefer-offline'): SpawnSyncReturns<string> =>
    npm(['install', '--global', '--prefix', prefix, mode, '--no-audit', '--no-fund', tarball], work);
  let res = install('--offline');
  if (res.status !== 0 && /ENOTCACHED/.test(res.stderr)) res = install('--prefer-offline');
  const unreachable = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|ECONNRESET/.exec(res.stderr);
  if (res.status !== 0 && unreachable && process.env['CI'] !== 'true') {
    t.skip(
      `the npm cache lacks the dependencies' metadata and the registry is unreachable (${unreachable[0]}): ` +
        'run once with the registry reachable (npm ci caches the tarballs only)',
    );
    return;
  }
  assert.equal(res.status, 0, `npm install -g ${tarball}:\n${res.stderr}`);
  assert.doesNotMatch(res.stderr, /install-scripts/, 'npm warns of an install script');
  const hookkeeper = join(prefix, 'bin', 'hookkeeper');

  // A user's repository: nothing of hookkeeper's, not even a package.json.
  const repo = join(work, 'user-repo');
  mkdirSync(repo);
  writeCiManifests(repo);
  const run = (args: string[]): SpawnSyncReturns<string> =>
    spawnSync(hookkeeper, args, { cwd: repo, encoding: 'utf8' });
  assert.equal(run(['--version']).stdout, `${version}\n`);
  // The kubectl plugin (kubectl finds kubectl-hookkeeper on PATH) is the same CLI.
  const plugin = spawnSync(join(prefix, 'bin', 'kubectl-hookkeeper'), ['version'], { cwd: repo, encoding: 'utf8' });
  assert.equal(plugin.stdout, `hookkeeper ${version}\n`, plugin.stderr);
  for (const c of CI_CASES) {
    const r = run(c.args('.'));
    assert.equal(r.status, c.code, `${c.name}:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, c.output, c.name);
  }
});
