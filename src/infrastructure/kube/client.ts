// loadKubeConfig(): client-node's KubeConfig from --kubeconfig/--context, the default search or in-cluster config:
// every credential form kubectl reads (exec plugins, auth providers, proxies...), not rewritten here (BENCHMARKS.md).
// The parent caches and the RBAC index use it directly; the audit only when connect.ts cannot read the kubeconfig.
import { KubeConfig } from '@kubernetes/client-node';
import { AppError } from '../../errors.js';
import { requireClusterSource, sourceFile } from './kubeconfig-source.js';

export interface KubeConnection {
  kubeconfig?: string;
  context?: string;
  /** For $KUBECONFIG and $HOME, as kubectl reads them. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * --kubeconfig names the file; otherwise kubectl's search ($KUBECONFIG, ~/.kube/config, then the pod's service
 * account). No source at all is a usage error, never client-node's made-up cluster at localhost:8080.
 */
export function loadKubeConfig(options: KubeConnection): KubeConfig {
  const source = requireClusterSource(options.kubeconfig, options.context, options.env ?? {});
  const file = sourceFile(source);
  const kc = new KubeConfig();
  try {
    if (file !== undefined) kc.loadFromFile(file);
    else if (source.from === 'in-cluster') kc.loadFromCluster();
    // Several KUBECONFIG files: client-node merges them as kubectl does (it reads the variable itself).
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
