// The watch-backed index of hook-owner grants: ClusterRoles, Roles, ClusterRoleBindings and RoleBindings
// watched as the parent caches watch their kinds (list-watch.ts), fed into OwnerGrants, so "is owner O protected in
// namespace N" is answered from memory on every review; the audit reads the same index.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import { kubeConfigAccess, pooledGet } from './api-requests.js';
import { GRANT_COLLECTIONS, OwnerGrants, type OwnerGrantSubject } from './owner-grants.js';
import { resourcePath } from './types.js';
import { watchCollection, type WatchedCollection, type WatchTransport } from './list-watch.js';

export interface RbacIndex {
  /** A role naming `owner` in resourceNames is bound to a subject, cluster-wide or in `namespace`. */
  protectedIn(owner: string, namespace: string | undefined): boolean;
  /** Who RBAC lets act for `owner` in `namespace`, and through which role and binding. */
  subjectsFor(owner: string, namespace: string | undefined): OwnerGrantSubject[];
  /** All four collections have listed once. */
  ready(): boolean;
  /** Listed, and no watch is failing now (while one fails, the answers are those of the last thing seen). */
  healthy(): boolean;
  stop(): void;
}

export interface RbacIndexOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Defaults to kept-alive connections with kubeConfig's credentials, one pool for the four; tests pass their own. */
  transport?: WatchTransport & { close?(): void };
}

export function createRbacIndex(options: RbacIndexOptions): RbacIndex {
  const transport = options.transport ?? pooledGet(kubeConfigAccess(options.kubeConfig));
  const grants = new OwnerGrants();
  const watched: WatchedCollection[] = GRANT_COLLECTIONS.map((c) => {
    const path = resourcePath(c.resource);
    const what = `RBAC index: ${c.resource.plural}`;
    const w = watchCollection({ transport, path, log: options.logger.child({ rbac: path }), what });
    // The collection keeps the objects too; the grants are what answers a review.
    if ('role' in c) {
      w.on('add', (obj) => grants.upsertRole(c.role, obj));
      w.on('update', (obj) => grants.upsertRole(c.role, obj));
      w.on('delete', (obj) => grants.deleteRole(c.role, obj));
    } else {
      w.on('add', (obj) => grants.upsertBinding(c.binding, obj));
      w.on('update', (obj) => grants.upsertBinding(c.binding, obj));
      w.on('delete', (obj) => grants.deleteBinding(c.binding, obj));
    }
    return w;
  });
  return {
    protectedIn: (owner, namespace) => owner !== '' && grants.protectedIn(owner, namespace),
    subjectsFor: (owner, namespace) => grants.subjectsFor(owner, namespace),
    ready: () => watched.every((w) => w.synced()),
    healthy: () => watched.every((w) => w.healthy()),
    stop() {
      for (const w of watched) w.stop();
      transport.close?.();
    },
  };
}
