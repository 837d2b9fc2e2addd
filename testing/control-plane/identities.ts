// Who talks to the e2e API server: static-token users (tokens.csv), one KubeConfig each, and the RBAC the
// non-admin identities need so that the webhook, not RBAC, is what decides their requests.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig, type V1ClusterRole, type V1ClusterRoleBinding } from '@kubernetes/client-node';
import { parse } from 'yaml';

export const IDENTITY_NAMES = [
  'admin',
  'etcdOperator',
  'machineApi',
  'alice',
  'bob',
  'clusterAdmin',
  'hookkeeper',
  'virtController',
  'pgo',
  'capiSync',
  'capiManager',
  'kcpManager',
] as const;
export type IdentityName = (typeof IDENTITY_NAMES)[number];

export interface Identity {
  username: string;
  uid: string;
  groups: readonly string[];
  token: string;
}

function serviceAccount(namespace: string, name: string): Omit<Identity, 'token' | 'uid'> {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

const SUBJECTS: Record<IdentityName, Omit<Identity, 'token' | 'uid'>> = {
  // system:masters is the break-glass group of hookkeeper's default policy.
  admin: { username: 'e2e-admin', groups: ['system:masters'] },
  // The identity the default policy registers for owner clusteroperator/etcd.
  etcdOperator: serviceAccount('openshift-etcd-operator', 'etcd-operator'),
  machineApi: serviceAccount('openshift-machine-api', 'machine-api-controllers'),
  alice: { username: 'alice', groups: [] },
  // A second ordinary user, for hook owners granted through RBAC (remove on hookowners.hookkeeper.io/<owner>).
  bob: { username: 'bob', groups: [] },
  // Bound to the cluster-admin ClusterRole by the scenarios that need it (wildcard RBAC), never break-glass.
  clusterAdmin: { username: 'root-operator', groups: ['e2e:operators'] },
  // webhook-config/base's ServiceAccount, with its ClusterRole: parent lookups (serve --kubeconfig) and audits.
  hookkeeper: serviceAccount('hookkeeper', 'hookkeeper'),
  // The controllers the child-resource examples register as finalizer removers.
  virtController: serviceAccount('kubevirt', 'kubevirt-controller'),
  pgo: serviceAccount('postgres-operator', 'pgo'),
  // The Machine API to Cluster API migration's synchronizer, as the default policy names it (policy.migration).
  capiSync: serviceAccount('openshift-cluster-api', 'capi-controllers'),
  // Cluster API's machine controller as clusterctl installs it (the default policy's machineControllers).
  capiManager: serviceAccount('capi-system', 'capi-manager'),
  // KubeadmControlPlane's controller as clusterctl installs it: the Cluster API profile's owner of kcp-cleanup.
  kcpManager: serviceAccount('capi-kubeadm-control-plane-system', 'capi-kubeadm-control-plane-manager'),
};

export function makeIdentities(): Record<IdentityName, Identity> {
  const entries = IDENTITY_NAMES.map(
    (name) =>
      [
        name,
        {
          ...SUBJECTS[name],
          uid: `uid-${name}`,
          token: `${name}-${randomBytes(16).toString('hex')}`,
        },
      ] as const,
  );
  return Object.fromEntries(entries) as Record<IdentityName, Identity>;
}

/** --token-auth-file: token,user,uid[,"group1,group2"]; no groups means no fourth column (an empty one is a group ""). */
export function tokensCsv(identities: Record<IdentityName, Identity>): string {
  return (
    IDENTITY_NAMES.map((name) => {
      const id = identities[name];
      return [id.token, id.username, id.uid, ...(id.groups.length > 0 ? [`"${id.groups.join(',')}"`] : [])].join(',');
    }).join('\n') + '\n'
  );
}

export function kubeConfigFor(server: string, caPem: string, name: IdentityName, identity: Identity): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'e2e', server, caData: Buffer.from(caPem).toString('base64'), skipTLSVerify: false }],
    users: [{ name, token: identity.token }],
    contexts: [{ name, cluster: 'e2e', user: name }],
    currentContext: name,
  });
  return kc;
}

/** Writes kc as a kubeconfig file (JSON is YAML), for `--kubeconfig FILE`; the token makes it private. */
export async function writeKubeConfig(file: string, kc: KubeConfig): Promise<string> {
  await writeFile(file, kc.exportConfig(), { mode: 0o600 });
  return file;
}

const MACHINE_GROUPS = ['machine.openshift.io', 'cluster.x-k8s.io'];
const CHILD_RESOURCES = ['pods', 'configmaps', 'services'];
const EVERY_VERB = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

function clusterRole(name: string, rules: V1ClusterRole['rules']): V1ClusterRole {
  return { metadata: { name }, ...(rules ? { rules } : {}) };
}

function binding(role: string, subjects: V1ClusterRoleBinding['subjects']): V1ClusterRoleBinding {
  return {
    metadata: { name: role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    ...(subjects ? { subjects } : {}),
  };
}

function saSubject(id: Identity): { kind: string; name: string; namespace: string } {
  const [, , namespace = '', name = ''] = id.username.split(':');
  return { kind: 'ServiceAccount', namespace, name };
}

/**
 * alice and the etcd operator edit Machines; the machine-api controllers also create and delete them. The child
 * examples' controllers create and edit their children, alice edits them; each controller may update the finalizers
 * of the kind it sets blockOwnerDeletion for, which OwnerReferencesPermissionEnforcement asks. hookkeeper's ServiceAccount
 * gets the parent kinds here (docs/child-resources.md, "What to add to the cluster"); its shipped ClusterRole is in
 * shippedRbac().
 */
export function rbacObjects(identities: Record<IdentityName, Identity>): {
  roles: V1ClusterRole[];
  bindings: V1ClusterRoleBinding[];
} {
  const user = (id: Identity): { apiGroup: string; kind: string; name: string } => ({
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'User',
    name: id.username,
  });
  return {
    roles: [
      clusterRole('hookkeeper-e2e:machine-editor', [
        { apiGroups: MACHINE_GROUPS, resources: ['machines'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
        // Clusters' upgrade hooks (where the CRD is installed): the same editors, the same promise.
        {
          apiGroups: ['cluster.x-k8s.io'],
          resources: ['clusters'],
          verbs: ['get', 'list', 'watch', 'update', 'patch'],
        },
      ]),
      clusterRole('hookkeeper-e2e:machine-controller', [
        { apiGroups: MACHINE_GROUPS, resources: ['machines', 'machinesets'], verbs: EVERY_VERB },
      ]),
      clusterRole('hookkeeper-e2e:child-editor', [
        { apiGroups: [''], resources: CHILD_RESOURCES, verbs: ['get', 'list', 'watch', 'update', 'patch'] },
      ]),
      clusterRole('hookkeeper-e2e:child-controller', [
        { apiGroups: [''], resources: CHILD_RESOURCES, verbs: EVERY_VERB },
      ]),
      clusterRole('hookkeeper-e2e:postgrescluster-finalizers', [
        {
          apiGroups: ['postgres-operator.crunchydata.com'],
          resources: ['postgresclusters/finalizers'],
          verbs: ['update'],
        },
      ]),
      clusterRole('hookkeeper-e2e:virtualmachineinstance-finalizers', [
        { apiGroups: ['kubevirt.io'], resources: ['virtualmachineinstances/finalizers'], verbs: ['update'] },
      ]),
      clusterRole('hookkeeper-e2e:parent-reader', [
        { apiGroups: ['kubevirt.io'], resources: ['virtualmachines'], verbs: ['get', 'list', 'watch'] },
        {
          apiGroups: ['postgres-operator.crunchydata.com'],
          resources: ['postgresclusters'],
          verbs: ['get', 'list', 'watch'],
        },
      ]),
    ],
    bindings: [
      binding('hookkeeper-e2e:machine-editor', [
        user(identities.alice),
        user(identities.bob),
        saSubject(identities.etcdOperator),
        saSubject(identities.capiSync),
      ]),
      binding('hookkeeper-e2e:machine-controller', [
        saSubject(identities.machineApi),
        saSubject(identities.capiManager),
        // KubeadmControlPlane creates its Machines.
        saSubject(identities.kcpManager),
      ]),
      binding('hookkeeper-e2e:child-editor', [user(identities.alice)]),
      binding('hookkeeper-e2e:child-controller', [saSubject(identities.virtController), saSubject(identities.pgo)]),
      binding('hookkeeper-e2e:postgrescluster-finalizers', [saSubject(identities.pgo)]),
      binding('hookkeeper-e2e:virtualmachineinstance-finalizers', [saSubject(identities.virtController)]),
      binding('hookkeeper-e2e:parent-reader', [saSubject(identities.hookkeeper)]),
    ],
  };
}

export interface AccessCheck {
  identity: IdentityName;
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
}

/** One request per binding above (and the shipped one): once all are allowed, the RBAC authorizer has seen them all. */
export const RBAC_CHECKS: readonly AccessCheck[] = [
  {
    identity: 'alice',
    verb: 'update',
    group: 'machine.openshift.io',
    resource: 'machines',
    namespace: 'openshift-machine-api',
  },
  {
    identity: 'etcdOperator',
    verb: 'patch',
    group: 'machine.openshift.io',
    resource: 'machines',
    namespace: 'openshift-machine-api',
  },
  {
    identity: 'machineApi',
    verb: 'create',
    group: 'machine.openshift.io',
    resource: 'machines',
    namespace: 'openshift-machine-api',
  },
  { identity: 'capiManager', verb: 'patch', group: 'cluster.x-k8s.io', resource: 'machines', namespace: 'capi-e2e' },
  { identity: 'alice', verb: 'patch', group: '', resource: 'pods' },
  { identity: 'virtController', verb: 'create', group: '', resource: 'pods' },
  {
    identity: 'pgo',
    verb: 'update',
    group: 'postgres-operator.crunchydata.com',
    resource: 'postgresclusters/finalizers',
  },
  { identity: 'virtController', verb: 'update', group: 'kubevirt.io', resource: 'virtualmachineinstances/finalizers' },
  { identity: 'hookkeeper', verb: 'watch', group: 'kubevirt.io', resource: 'virtualmachines' },
  { identity: 'hookkeeper', verb: 'list', group: 'machine.openshift.io', resource: 'machines' },
];

/** webhook-config/base's ClusterRole and ClusterRoleBinding as shipped: audits in the suite run with exactly that access. */
export async function shippedRbac(
  repoRoot: string,
): Promise<{ roles: V1ClusterRole[]; bindings: V1ClusterRoleBinding[] }> {
  const read = async <T>(file: string): Promise<T> =>
    parse(await readFile(join(repoRoot, 'webhook-config', 'base', file), 'utf8')) as T;
  return {
    roles: [await read<V1ClusterRole>('cluster-role.yaml')],
    bindings: [await read<V1ClusterRoleBinding>('cluster-role-binding.yaml')],
  };
}
