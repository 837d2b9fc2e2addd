// A real helm for the tests of charts/hookkeeper: $HELM (.ci/run builds one), else `helm`; the tests skip without
// one, saying how to run them, except under CI=true, where a missing helm is a failure (helmSkip says which).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The helm executable, or undefined. */
export function findHelm(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [...(env['HELM'] ? [env['HELM']] : []), 'helm'];
  return candidates.find((cmd) => spawnSync(cmd, ['version', '--short'], { encoding: 'utf8' }).status === 0);
}

export const NO_HELM = 'no helm (set HELM=/path/to/helm to run; .ci/run builds one)';

/** The `skip` option for a helm test: false when helm is there or CI=true (the test then fails on its own). */
export function helmSkip(helm: string | undefined, env: NodeJS.ProcessEnv = process.env): false | string {
  return helm || env['CI'] === 'true' ? false : NO_HELM;
}

/** Fails the calling test with a clear message when helm is missing (reached only under CI=true). */
export function requireHelm(helm: string | undefined): string {
  if (!helm) throw new Error(`${NO_HELM}; CI=true needs it`);
  return helm;
}

export function chartDir(repoRoot: string): string {
  return join(repoRoot, 'charts', 'hookkeeper');
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with the arguments given; never throws on a non-zero exit. */
export function runHelm(helm: string, args: readonly string[]): HelmResult {
  const res = spawnSync(helm, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}

/** Every document `helm template RELEASE CHART --namespace NS ARGS...` renders, in output order; throws with helm's stderr. */
export function helmTemplate<T = unknown>(
  helm: string,
  chart: string,
  options: { release?: string; namespace?: string; args?: readonly string[] } = {},
): T[] {
  const out = execFileSync(
    helm,
    [
      'template',
      options.release ?? 'hookkeeper',
      chart,
      '--namespace',
      options.namespace ?? 'hookkeeper',
      ...(options.args ?? []),
    ],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return parseAllDocuments(out)
    .map((d) => d.toJS() as T)
    .filter((d) => d !== null);
}
