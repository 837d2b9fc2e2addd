// The watch-backed index of hook-owner grants: ClusterRoles, Roles, ClusterRoleBindings and RoleBindings
// watched as the parent caches watch their kinds (watch.ts), fed into OwnerGrants, so "is owner O protected in
// namespace N" is answered from memory on every review; the audit reads the same index.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import { type ApiGet, kubeGet } from './api-requests.js';
import { GRANT_COLLECTIONS, OwnerGrants, type OwnerGrantSubject } from './owner-grants.js';
import { resourcePath } from './types.js';
import { watchCollection, type WatchedCollection } from './watch.js';

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
  /** Defaults to a GET with kubeConfig's credentials; tests pass their own. */
  get?: ApiGet;
}

export function createRbacIndex(options: RbacIndexOptions): RbacIndex {
  const get = options.get ?? kubeGet(options.kubeConfig);
  const grants = new OwnerGrants();
  const watched: WatchedCollection[] = GRANT_COLLECTIONS.map((c) => {
    const path = resourcePath(c.resource);
    const what = `RBAC index: ${c.resource.plural}`;
    const w = watchCollection(options.kubeConfig, get, path, options.logger.child({ rbac: path }), what);
    // Only what a grant needs is kept from each object (client-node's informer keeps the objects themselves).
    if ('role' in c) {
      w.informer.on('add', (obj) => grants.upsertRole(c.role, obj));
      w.informer.on('update', (obj) => grants.upsertRole(c.role, obj));
      w.informer.on('delete', (obj) => grants.deleteRole(c.role, obj));
    } else {
      w.informer.on('add', (obj) => grants.upsertBinding(c.binding, obj));
      w.informer.on('update', (obj) => grants.upsertBinding(c.binding, obj));
      w.informer.on('delete', (obj) => grants.deleteBinding(c.binding, obj));
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
    },
  };
}
