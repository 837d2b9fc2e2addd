// Which cluster a command consults, and why. client-node's default search ends, when it finds no kubeconfig and is not
// in a pod, in a made-up cluster at http://localhost:8080; hookkeeper decides the source itself first, so that with
// none a command says so (audit) or runs without a cluster (serve), and so that serve can log what it consults.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../errors.js';

/** The in-cluster credentials client-node reads (its loadFromCluster). */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** Where the cluster comes from, in kubectl's order: --kubeconfig, $KUBECONFIG, ~/.kube/config, the pod. */
export type ClusterSource =
  | { from: 'flag'; file: string }
  | { from: 'variable'; files: string[] }
  | { from: 'default-file'; file: string }
  | { from: 'in-cluster' };

type Env = Readonly<Record<string, string | undefined>>;

function defaultFile(env: Env): string {
  return join(env['HOME'] || homedir(), '.kube', 'config');
}

/** The source kubectl (and client-node's default search) would use; undefined when there is none. */
export function clusterSource(
  kubeconfig: string | undefined,
  env: Env,
  exists: (path: string) => boolean = existsSync,
): ClusterSource | undefined {
  if (kubeconfig) return { from: 'flag', file: kubeconfig };
  const listed = (env['KUBECONFIG'] ?? '').split(':').filter((p) => p !== '');
  if (listed.length > 0) return { from: 'variable', files: listed };
  const home = defaultFile(env);
  if (exists(home)) return { from: 'default-file', file: home };
  if (env['KUBERNETES_SERVICE_HOST'] && exists(SERVICE_ACCOUNT_TOKEN)) return { from: 'in-cluster' };
  return undefined;
}

/** "--kubeconfig FILE", "KUBECONFIG (a:b)", "FILE (the default kubeconfig)", "the pod's service account". */
export function describeSource(source: ClusterSource): string {
  switch (source.from) {
    case 'flag':
      return `--kubeconfig ${source.file}`;
    case 'variable':
      return `the KUBECONFIG variable (${source.files.join(':')})`;
    case 'default-file':
      return `${source.file} (the default kubeconfig: no --kubeconfig, KUBECONFIG not set)`;
    case 'in-cluster':
      return "the pod's service account (in-cluster: no kubeconfig)";
  }
}

/** The one file the source names, when it names exactly one. */
export function sourceFile(source: ClusterSource): string | undefined {
  if (source.from === 'flag' || source.from === 'default-file') return source.file;
  return source.from === 'variable' && source.files.length === 1 ? source.files[0] : undefined;
}

/** Where the search looked, for the error that says it found nothing. */
export function noClusterMessage(env: Env): string {
  return `no kubeconfig: no --kubeconfig, KUBECONFIG is not set, no ${defaultFile(env)}, and not in a pod; give --kubeconfig FILE or set KUBECONFIG`;
}

/** The source, or a usage error saying there is none (and, with --context, that there is nothing to choose from). */
export function requireClusterSource(
  kubeconfig: string | undefined,
  context: string | undefined,
  env: Env,
  exists: (path: string) => boolean = existsSync,
): ClusterSource {
  const source = clusterSource(kubeconfig, env, exists);
  const onContext = context === undefined ? '' : `--context ${context}: `;
  if (!source) throw new AppError('USAGE', `${onContext}${noClusterMessage(env)}`);
  if (source.from === 'in-cluster' && context !== undefined)
    throw new AppError(
      'USAGE',
      `${onContext}no kubeconfig to choose a context from: the cluster is ${describeSource(source)}; give --kubeconfig FILE`,
    );
  return source;
}
