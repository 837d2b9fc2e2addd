// Who talks to the e2e API server: static-token users (tokens.csv), one KubeConfig each, and the RBAC the
// non-admin identities need so that the webhook, not RBAC, is what decides their requests.
import { randomBytes } from 'node:crypto';
import { KubeConfig, type V1ClusterRole, type V1ClusterRoleBinding } from '@kubernetes/client-node';

export const IDENTITY_NAMES = ['admin', 'etcdOperator', 'machineApi', 'alice'] as const;
export type IdentityName = (typeof IDENTITY_NAMES)[number];

export interface Identity {
  username: string;
  uid: string;
  groups: readonly string[];
  token: string;
}

function serviceAccount(namespace: string, name: string): Omit<Identity, 'token' | 'uid'> {
  return { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

const SUBJECTS: Record<IdentityName, Omit<Identity, 'token' | 'uid'>> = {
  // system:masters is the break-glass group of hookkeeper's default policy.
  admin: { username: 'e2e-admin', groups: ['system:masters'] },
  // The identity the default policy registers for owner clusteroperator/etcd.
  etcdOperator: serviceAccount('openshift-etcd-operator', 'etcd-operator'),
  machineApi: serviceAccount('openshift-machine-api', 'machine-api-controllers'),
  alice: { username: 'alice', groups: [] },
};

export function makeIdentities(): Record<IdentityName, Identity> {
  const entries = IDENTITY_NAMES.map((name) => [name, {
    ...SUBJECTS[name],
    uid: `uid-${name}`,
    token: `${name}-${randomBytes(16).toString('hex')}`,
  }] as const);
  return Object.fromEntries(entries) as Record<IdentityName, Identity>;
}

/** --token-auth-file: token,user,uid[,"group1,group2"]; no groups means no fourth column (an empty one is a group ""). */
export function tokensCsv(identities: Record<IdentityName, Identity>): string {
  return IDENTITY_NAMES.map((name) => {
    const id = identities[name];
    return [id.token, id.username, id.uid, ...(id.groups.length > 0 ? [`"${id.groups.join(',')}"`] : [])].join(',');
  }).join('\n') + '\n';
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

const MACHINE_GROUPS = ['machine.openshift.io', 'cluster.x-k8s.io'];

/** alice and the etcd operator edit Machines; the machine-api controllers also create and delete them. */
export function rbacObjects(identities: Record<IdentityName, Identity>): { roles: V1ClusterRole[]; bindings: V1ClusterRoleBinding[] } {
  const saSubject = (id: Identity): { kind: string; name: string; namespace: string } => {
    const [, , namespace = '', name = ''] = id.username.split(':');
    return { kind: 'ServiceAccount', namespace, name };
  };
  return {
    roles: [
      {
        metadata: { name: 'hookkeeper-e2e:machine-editor' },
        rules: [{ apiGroups: MACHINE_GROUPS, resources: ['machines'], verbs: ['get', 'list', 'watch', 'update', 'patch'] }],
      },
      {
        metadata: { name: 'hookkeeper-e2e:machine-controller' },
        rules: [{ apiGroups: MACHINE_GROUPS, resources: ['machines', 'machinesets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }],
      },
    ],
    bindings: [
      {
        metadata: { name: 'hookkeeper-e2e:machine-editor' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'hookkeeper-e2e:machine-editor' },
        subjects: [
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: identities.alice.username },
          saSubject(identities.etcdOperator),
        ],
      },
      {
        metadata: { name: 'hookkeeper-e2e:machine-controller' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'hookkeeper-e2e:machine-controller' },
        subjects: [saSubject(identities.machineApi)],
      },
    ],
  };
}
