// Wildcard RBAC is not ownership, on the real API server in each admission mode: a user bound to the cluster-admin
// ClusterRole (not break-glass) is refused the etcd hook and the hook of an owner someone holds a named grant of; the
// holder of that grant removes its owner's hook and not the etcd one; under wildcardGrants: warn the cluster-admin's
// removal passes with a warning and an audit annotation in the API server's audit log; break-glass is still warned.
// The webhook is a hookkeeper run as its ServiceAccount (--kubeconfig: SubjectAccessReviews and the RBAC index);
// native mode is the same policy rendered to admission policies, whose authorizer asks the same questions.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { parsePolicy } from '../../../src/infrastructure/config/load.js';
import { ETCD_HOOK, openshiftMachine } from '../../../testing/control-plane/machines.js';
import {
  ADMISSION_MODES,
  renderForPlane,
  switchMode,
  type AdmissionMode,
  type NativePolicies,
} from '../harness/admission-modes.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import type { IdentityName } from '../../../testing/control-plane/identities.js';
import { DENIAL_PREFIX, rejected, warningTexts, type Rejection } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { describeEachMode } from '../harness/per-mode.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { hooksOf, removeHook, mayRemoveFor } from './helpers.js';

const NS = 'e2e-wildcard';
/**
 * The modes this group runs in: static mode loads the same CEL as native mode from disk, and its decisions are the
 * Machine groups' to prove; another two switches here would add a minute.
 */
const API_MODES = ADMISSION_MODES.filter((m) => m !== 'static');
const STORAGE = { name: 'storage.example.com/Migrate', owner: 'team/storage' };
const ADMIN_BINDING = 'hookkeeper-e2e:wildcard-cluster-admin';
const STORAGE_GRANT = 'hookkeeper-e2e:wildcard-team-storage';

/** The default policy, with team/storage registered (no identity: RBAC grants it), so both engines guard it. */
const policyYaml = (wildcardGrants: 'deny' | 'warn'): string =>
  [
    'apiVersion: hookkeeper.io/v1alpha1',
    'kind: Policy',
    `wildcardGrants: ${wildcardGrants}`,
    'owners:',
    '  clusteroperator/etcd:',
    '    serviceAccounts: [{namespace: openshift-etcd-operator, name: etcd-operator}]',
    '  team/storage: {}',
    '',
  ].join('\n');

/** The grant command a wildcard denial prints for a registered owner: no user of its own, a service account to fill in. */
const grantFor = (role: string, owner: string): string =>
  `kubectl create clusterrole ${role} --verb=remove --resource=hookowners.hookkeeper.io --resource-name=${owner} ` +
  `&& kubectl create clusterrolebinding ${role} --clusterrole=${role} --serviceaccount=<namespace>:<name>`;

function wildcardDenial(index: number, hook: { name: string; owner: string }, grant: string): string {
  return (
    `spec.lifecycleHooks.preDrain[${index}]: Forbidden: "root-operator" may not remove preDrain hook ` +
    `"${hook.name}" owned by "${hook.owner}"; RBAC lets "root-operator" act for every hook owner, which is not ` +
    'ownership, and wildcardGrants is deny: use a break-glass identity (break-glass: group system:masters) or one ' +
    `whose grant names the owner; to let an identity act for it: ${grant}`
  );
}

/** The mode's refusal, in hookkeeper's words: the webhook's (with its prefix), or the first failing validation's. */
function assertRefused(mode: AdmissionMode, refusal: Rejection, message: string): void {
  if (mode === 'webhook') {
    assert.equal(refusal.by, 'webhook', refusal.message);
    assert.equal(refusal.message, DENIAL_PREFIX + message);
  } else {
    assert.equal(refusal.by, 'policy', refusal.message);
    assert.equal(refusal.text, message);
  }
}

interface AuditEvent {
  verb?: string;
  stage?: string;
  objectRef?: { namespace?: string; name?: string };
  responseStatus?: { code?: number };
  annotations?: Record<string, string>;
}

/** The audit annotations of the successful patch of Machine `name`, once the API server has logged it. */
async function auditAnnotationsOf(e: E2EEnv, name: string): Promise<Record<string, string>> {
  return pollUntil(`the audit event of the patch of ${name}`, 30_000, async () => {
    const lines = (await readFile(e.plane.auditLog, 'utf8')).split('\n').filter((l) => l !== '');
    const event = lines
      .map((l) => JSON.parse(l) as AuditEvent)
      .find(
        (ev) =>
          ev.verb === 'patch' &&
          ev.stage === 'ResponseComplete' &&
          ev.objectRef?.namespace === NS &&
          ev.objectRef.name === name &&
          ev.responseStatus?.code === 200,
      );
    return event ? (event.annotations ?? {}) : undefined;
  });
}

export const wildcardGrantScenarios: Scenario = (env) => {
  describe('wildcard RBAC is not ownership: the webhook, the native policies and both', () => {
    const rbac = () => env().plane.kubeConfig('admin').makeApiClient(RbacAuthorizationV1Api);
    const allowedBySar = (user: string, owner: string): Promise<boolean> => mayRemoveFor(env(), user, owner);
    let seq = 0;
    /** A fresh Machine in NS with the etcd hook and team/storage's. */
    const machine = async (): Promise<string> => {
      const name = `wildcard-${++seq}`;
      await env()
        .machines('admin')
        .create(NS, openshiftMachine({ name, namespace: NS, preDrain: [ETCD_HOOK, STORAGE] }));
      return name;
    };
    const remove = async (as: IdentityName, name: string, hook: string) => {
      const client = env().machines(as);
      return client.patch(NS, name, removeHook(await client.get(NS, name), 'preDrain', hook));
    };

    before(async () => {
      const e = env();
      await e.plane
        .kubeConfig('admin')
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: NS } } });
      const user = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
      const clusterRole = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name });
      await rbac().createClusterRoleBinding({
        body: {
          metadata: { name: ADMIN_BINDING },
          roleRef: clusterRole('cluster-admin'),
          subjects: [user(e.plane.identities.clusterAdmin.username)],
        },
      });
      await rbac().createClusterRole({
        body: {
          metadata: { name: STORAGE_GRANT },
          rules: [
            {
              apiGroups: ['hookkeeper.io'],
              resources: ['hookowners'],
              verbs: ['remove'],
              resourceNames: [STORAGE.owner],
            },
          ],
        },
      });
      await rbac().createClusterRoleBinding({
        body: { metadata: { name: STORAGE_GRANT }, roleRef: clusterRole(STORAGE_GRANT), subjects: [user('bob')] },
      });
      for (const [who, owner] of [
        ['root-operator', ETCD_HOOK.owner],
        ['bob', STORAGE.owner],
      ] as const)
        await pollUntil(`RBAC to let ${who} remove hookowners/${owner}`, 30_000, async () =>
          (await allowedBySar(who, owner)) ? true : undefined,
        );
    });

    const hookkeepers: Hookkeeper[] = [];
    after(async () => {
      const e = env();
      // Back to the suite's own policy and mode; the grants go, so no later group inherits them.
      await switchMode(e.plane, e.hookkeeper, e.native, e.mode);
      for (const h of hookkeepers) if (h.running()) await h.stop();
      await rbac().deleteClusterRoleBinding({ name: ADMIN_BINDING });
      await rbac().deleteClusterRoleBinding({ name: STORAGE_GRANT });
      await rbac().deleteClusterRole({ name: STORAGE_GRANT });
    });

    for (const wildcardGrants of ['deny', 'warn'] as const) {
      describe(`wildcardGrants: ${wildcardGrants}`, () => {
        let served: { hookkeeper: Hookkeeper; native: NativePolicies } | undefined;
        const setUp = async (): Promise<{ hookkeeper: Hookkeeper; native: NativePolicies }> => {
          if (served) return served;
          const e = env();
          const yaml = policyYaml(wildcardGrants);
          const hookkeeper = await startHookkeeper(e.plane, {
            name: `hookkeeper-wildcard-${wildcardGrants}`,
            config: yaml,
            args: ['--kubeconfig', await e.plane.kubeConfigFile('hookkeeper')],
          });
          hookkeepers.push(hookkeeper);
          served = { hookkeeper, native: await renderForPlane(e.plane, parsePolicy(yaml, 'wildcard.yaml')) };
          return served;
        };

        describeEachMode(API_MODES, env, setUp, (mode, off) => {
          if (wildcardGrants === 'deny') {
            test('a cluster-admin is refused the etcd hook, and team/storage’s hook though bob holds its grant', async (t) => {
              if (off(t)) return;
              const name = await machine();
              const etcd = await rejected(() => remove('clusterAdmin', name, ETCD_HOOK.name));
              assertRefused(
                mode,
                etcd,
                wildcardDenial(0, ETCD_HOOK, grantFor('hookowner-clusteroperator-etcd', ETCD_HOOK.owner)),
              );
              const storage = await rejected(() => remove('clusterAdmin', name, STORAGE.name));
              assertRefused(
                mode,
                storage,
                wildcardDenial(1, STORAGE, grantFor('hookowner-team-storage', STORAGE.owner)),
              );
              assert.deepEqual(hooksOf(await env().machines('admin').get(NS, name), 'preDrain'), [ETCD_HOOK, STORAGE]);
            });

            test('bob, holding only the grant naming team/storage, removes its hook and not the etcd one', async (t) => {
              if (off(t)) return;
              const name = await machine();
              const etcd = await rejected(() => remove('bob', name, ETCD_HOOK.name));
              assert.match(
                etcd.text,
                /^spec\.lifecycleHooks\.preDrain\[0\]: Forbidden: "bob" may not remove preDrain hook "EtcdQuorumOperator" owned by "clusteroperator\/etcd"; only its owner may: system:serviceaccount:openshift-etcd-operator:etcd-operator /,
              );
              const { object, warnings } = await remove('bob', name, STORAGE.name);
              assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK]);
              assert.deepEqual(warnings, []);
            });
          } else {
            test('a cluster-admin removes the etcd hook with a warning and an audit annotation of route wildcard', async (t) => {
              if (off(t)) return;
              const e = env();
              const name = await machine();
              const { object, warnings } = await remove('clusterAdmin', name, ETCD_HOOK.name);
              assert.deepEqual(hooksOf(object, 'preDrain'), [STORAGE]);
              const warning =
                'wildcard RBAC: root-operator may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited';
              assert.deepEqual(warningTexts(warnings), [warning]);
              const annotations = await auditAnnotationsOf(e, name);
              const webhook = Object.entries(annotations).find(([k]) => k.endsWith('/wildcard-hook-removal'));
              const native = annotations['validation.policy.admission.k8s.io/validation_failure'];
              if (mode !== 'native') {
                assert.ok(webhook, JSON.stringify(annotations));
                assert.deepEqual(JSON.parse(webhook[1]), {
                  stage: 'preDrain',
                  hook: ETCD_HOOK.name,
                  owner: ETCD_HOOK.owner,
                  user: 'root-operator',
                  action: 'removal',
                  route: 'wildcard',
                });
              }
              if (mode !== 'webhook') assert.ok(native?.includes(warning), JSON.stringify(annotations));
            });
          }

          test('break-glass (system:masters) still removes the etcd hook, warned', async (t) => {
            if (off(t)) return;
            const e = env();
            const name = await machine();
            const { object, warnings } = await remove('admin', name, ETCD_HOOK.name);
            assert.deepEqual(hooksOf(object, 'preDrain'), [STORAGE]);
            assert.deepEqual(warningTexts(warnings), [
              `break-glass: ${e.plane.identities.admin.username} may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited`,
            ]);
          });
        });
      });
    }
  });
};
