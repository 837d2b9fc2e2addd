// loadKubeConfig(): client-node's KubeConfig from --kubeconfig/--context, the default search or in-cluster config.
// The parent caches and the RBAC index use it directly; the audit only when connect.ts cannot read the kubeconfig.
import { KubeConfig } from '@kubernetes/client-node';
import { AppError } from '../errors.js';

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
    throw new AppError(
      'USAGE',
      `cannot load kubeconfig${options.kubeconfig ? ` ${options.kubeconfig}` : ''}: ${(cause as Error).message}`,
      { cause },
    );
  }
  if (options.context !== undefined) {
    if (!kc.getContextObject(options.context)) {
      throw new AppError(
        'USAGE',
        `--context ${options.context}: no such context (have: ${
          kc
            .getContexts()
            .map((c) => c.name)
            .join(', ') || 'none'
        })`,
      );
    }
    kc.setCurrentContext(options.context);
  }
  if (!kc.getCurrentCluster())
    throw new AppError('USAGE', 'the kubeconfig has no current cluster: give --kubeconfig and --context');
  return kc;
}
