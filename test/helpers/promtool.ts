// A real promtool for the tests of the shipped alerts and dashboard: $PROMTOOL (.ci/run builds one with
// scripts/build-promtool.sh), else `promtool`; the tests skip without one, saying how to run them, except under
// CI=true, where a missing promtool is a failure (as helm's are: test/helpers/helm.ts).
import { spawnSync } from 'node:child_process';

/** The promtool executable, or undefined. */
export function findPromtool(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [...(env['PROMTOOL'] ? [env['PROMTOOL']] : []), 'promtool'];
  return candidates.find((cmd) => spawnSync(cmd, ['--version'], { encoding: 'utf8' }).status === 0);
}

export const NO_PROMTOOL = 'no promtool (set PROMTOOL=/path/to/promtool to run; scripts/build-promtool.sh builds one)';

/** The `skip` option for a promtool test: false when promtool is there or CI=true (the test then fails on its own). */
export function promtoolSkip(promtool: string | undefined, env: NodeJS.ProcessEnv = process.env): false | string {
  return promtool || env['CI'] === 'true' ? false : NO_PROMTOOL;
}

/** Fails the calling test with a clear message when promtool is missing (reached only under CI=true). */
export function requirePromtool(promtool: string | undefined): string {
  if (!promtool) throw new Error(`${NO_PROMTOOL}; CI=true needs it`);
  return promtool;
}

export interface PromtoolResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs promtool with the arguments given, in `cwd`; never throws on a non-zero exit. */
export function runPromtool(promtool: string, args: readonly string[], cwd?: string): PromtoolResult {
  const res = spawnSync(promtool, args, { encoding: 'utf8', cwd, maxBuffer: 16 * 1024 * 1024 });
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}
