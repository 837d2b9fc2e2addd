// `npm pack`'s prepack and postpack: the tarball carries dist/ already built, so its package.json drops `prepare`,
// which npm would otherwise list as an install script not covered by allowScripts on every `npm install` of it, and
// `bundleDependencies`, which only an install from git needs (scripts/prepare.js says why): a tarball is not prepared.
// prepack builds and writes the stripped manifest (the original kept under node_modules); postpack puts it back.
// A pack that fails between the two leaves the stripped manifest: the next prepack or `restore` puts it back.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const kept = join(root, 'node_modules', '.hookkeeper-pack', 'package.json');

function restore() {
  if (existsSync(kept)) renameSync(kept, manifest);
}

function strip() {
  restore();
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'prepare.js')], { stdio: 'inherit' });
  if (built.error) throw built.error;
  if (built.status !== 0) process.exit(built.status ?? 1);
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  delete pkg.scripts.prepare;
  delete pkg.bundleDependencies;
  mkdirSync(dirname(kept), { recursive: true });
  writeFileSync(kept, text);
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
}

const command = process.argv[2];
if (command === 'strip') strip();
else if (command === 'restore') restore();
else {
  console.error('usage: node scripts/pack-manifest.js strip|restore');
  process.exit(2);
}
