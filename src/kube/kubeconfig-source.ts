// Whether a cluster is configured at all. client-node's default search ends, when it finds no kubeconfig and is not
// in a pod, in a made-up cluster at http://localhost:8080; serve must tell that apart from a configured cluster, so
// that with none (a laptop) the policy's registry alone decides hook ownership instead of waiting on a phantom.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The in-cluster credentials client-node reads (its loadFromCluster). */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The source client-node's default search would use: $KUBECONFIG, ~/.kube/config, or the pod's service account;
 * undefined when there is none.
 */
export function kubeConfigSource(
  env: Readonly<Record<string, string | undefined>>,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  const fromEnv = env['KUBECONFIG'];
  if (fromEnv) return `$KUBECONFIG ${fromEnv}`;
  const home = join(env['HOME'] || homedir(), '.kube', 'config');
  if (exists(home)) return home;
  if (env['KUBERNETES_SERVICE_HOST'] && exists(SERVICE_ACCOUNT_TOKEN)) return 'in-cluster service account';
  return undefined;
}
