// npm's `prepare`: build dist/, for `npm ci`, `npm pack` and an install from git. pre-commit's `language: node`
// installs a hook as `npm install -g git+file://…`; npm prepares that clone with an `npm install` that inherits the
// global install's settings (npm_config_global), so it puts no dev dependency here and tsc is missing: install them
// here first, locally. That inherited install also installs this clone globally, into the very directory the outer
// install is filling at the same time (ENOTEMPTY, now and then); package.json's `bundleDependencies` makes the outer
// install unpack this package, and so wait for its preparation, before it writes any dependency.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

function run(command, args, env = process.env) {
  const res = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  if (res.error) throw res.error;
  if (res.status !== 0) process.exit(res.status ?? 1);
}

if (!existsSync(tsc)) {
  // The settings that make npm install somewhere else than this directory, or install this package itself.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_config_(global|location|prefix)$/i.test(k)),
  );
  const npm = process.env['npm_execpath'];
  const args = ['ci', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund'];
  if (npm) run(process.execPath, [npm, ...args], env);
  else run('npm', args, env);
}
run(process.execPath, [tsc, '-p', 'tsconfig.build.json']);
