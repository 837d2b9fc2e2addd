// Connection to the cluster: kubeconfig (--kubeconfig, --context) or in-cluster config, and the service account
// lookup the audit uses to find hook owners whose identity is gone.
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { AppError } from '../errors.js';
import { clusterError } from './errors.js';

export interface KubeConnection {
  kubeconfig?: string;
  context?: string;
}

/**
 * --kubeconfig names the file; otherwise client-node's default search ($KUBECONFIG, ~/.kube/config, then the
 * pod's service account when running in a cluster).
 */
export function loadKubeConfig(options: KubeConnection): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
    else kc.loadFromDefault();
  } catch (cause) {
    throw new AppError('USAGE', `cannot load kubeconfig${options.kubeconfig ? ` ${options.kubeconfig}` : ''}: ${(cause as Error).message}`, { cause });
  }
  if (options.context !== undefined) {
    if (!kc.getContextObject(options.context)) {
      throw new AppError('USAGE', `--context ${options.context}: no such context (have: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'})`);
    }
    kc.setCurrentContext(options.context);
  }
  if (!kc.getCurrentCluster()) throw new AppError('USAGE', 'the kubeconfig has no current cluster: give --kubeconfig and --context');
  return kc;
}

export function serverOf(kc: KubeConfig): string {
  return kc.getCurrentCluster()?.server ?? '(no server)';
}

/** serviceAccountExists for the audit: 404 means gone; any other failure is a cluster error. */
export function serviceAccountLookup(kc: KubeConfig): (namespace: string, name: string) => Promise<boolean> {
  const api = kc.makeApiClient(CoreV1Api);
  return async (namespace, name) => {
    try {
      await api.readNamespacedServiceAccount({ name, namespace });
      return true;
    } catch (err) {
      if (err instanceof ApiException && (err as ApiException<unknown>).code === 404) return false;
      throw clusterError(err, { server: serverOf(kc), action: `read service account ${namespace}/${name}` });
    }
  };
}
