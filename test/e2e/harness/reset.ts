// removeMachines(): every Machine and MachineSet the scenarios created, gone (finalizers taken off first), so that the
// next admission mode's groups can create their fixed names again. Objects labelled CORPUS_LABEL stay: the
// differential corpus stores its old objects once and sends only dry-run requests against them.
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { KubeObject } from '../../../src/core/types.js';
import {
  CAPI_MACHINES,
  OPENSHIFT_MACHINES,
  OPENSHIFT_MACHINESETS,
  type Resource,
} from '../../../testing/control-plane/kube.js';
import { GiveUp, pollUntil } from '../../../testing/control-plane/processes.js';
import type { E2EEnv } from './suite.js';

export const CORPUS_LABEL = 'e2e.hookkeeper.io/corpus';

interface Listed {
  items: KubeObject[];
}

function meta(obj: KubeObject): { name: string; namespace: string; finalizers?: string[]; labels?: object } {
  return obj['metadata'] as { name: string; namespace: string; finalizers?: string[]; labels?: object };
}

export async function removeMachines(env: E2EEnv): Promise<void> {
  const api = env.plane.kubeConfig('admin').makeApiClient(CustomObjectsApi);
  const selector = `!${CORPUS_LABEL}`;
  // Right after admission objects or CRDs change, a list may be refused for a moment with 429 "storage is
  // (re)initializing": that one is asked again; any other error ends the reset.
  const list = (resource: Resource): Promise<Listed> =>
    pollUntil(`a list of ${resource.plural}.${resource.group}`, 30_000, async () => {
      try {
        return (await api.listClusterCustomObject({ ...resource, labelSelector: selector })) as Listed;
      } catch (err) {
        if ((err as { code?: unknown }).code === 429) return undefined;
        throw new GiveUp(err instanceof Error ? err.message : String(err));
      }
    });
  for (const resource of [OPENSHIFT_MACHINES, OPENSHIFT_MACHINESETS, CAPI_MACHINES] as Resource[]) {
    const listed = await list(resource);
    for (const obj of listed.items) {
      const { name, namespace, finalizers } = meta(obj);
      // Deleted first, then its finalizers taken off, as break-glass (admin): a Machine still carrying hooks lets no
      // one else (controller-finalizer).
      await api.deleteNamespacedCustomObject({ ...resource, namespace, name }).catch(() => undefined);
      if (finalizers && finalizers.length > 0)
        await api
          .patchNamespacedCustomObject({
            ...resource,
            namespace,
            name,
            body: [{ op: 'remove', path: '/metadata/finalizers' }],
          })
          .catch(() => undefined);
    }
    await pollUntil(`every ${resource.plural}.${resource.group} but the corpus to be gone`, 30_000, async () =>
      (await list(resource)).items.length === 0 ? true : undefined,
    );
  }
}
