// A real kustomize for the tests that build webhook-config/: $KUSTOMIZE (.ci/run builds one), else `kustomize`,
// else `kubectl kustomize`; undefined when none is installed (callers skip, saying how to run them).
import { execFileSync, spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

/** The command that builds a kustomization directory given as its last argument, or undefined. */
export function findKustomize(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const candidates = [
    ...(env['KUSTOMIZE'] ? [[env['KUSTOMIZE'], 'build']] : []),
    ['kustomize', 'build'],
    ['kubectl', 'kustomize'],
  ];
  return candidates.find(
    ([cmd, sub]) => spawnSync(cmd ?? '', [sub ?? '', '--help'], { encoding: 'utf8' }).status === 0,
  );
}

export const NO_KUSTOMIZE = 'no kustomize (set KUSTOMIZE=/path/to/kustomize to run)';

/** Every document of `kustomize build dir`, in output order. */
export function kustomizeBuild<T = unknown>(kustomize: readonly string[], dir: string): T[] {
  const [cmd, ...args] = kustomize;
  // The native policies alone pass the default 1 MiB of output (ENOBUFS): as much room as helm's runs get.
  const out = execFileSync(cmd ?? '', [...args, dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(out).map((d) => d.toJS() as T);
}
