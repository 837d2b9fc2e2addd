// Hook ownership through RBAC end to end: a hookkeeper started as its ServiceAccount (--kubeconfig), as
// the API server's validating webhook for Machines in its own namespace, which the suite's hookkeeper (no kubeconfig,
// registry only) leaves alone. Real identities remove hooks; real ClusterRoles and bindings grant owners; the
// denial's kubectl line is run as given.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { caBundle } from '../../../src/infrastructure/certs/pki.js';
import { renderWebhookConfigurations } from '../../../src/compilers/deploy/render.js';
import { ETCD_HOOK, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { replaceFile } from '../../helpers/tls.js';
import { createRaw, rawRequest } from '../../../testing/control-plane/http.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { DENIAL_PREFIX, rejected } from '../../../testing/control-plane/kube.js';
import { kubectlSkip, requireKubectl } from '../harness/kubectl.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { Scenario } from '../harness/suite.js';
import { HOOKOWNERS_CRD_FILE } from './hook-owners-rbac.js';
import { hooksOf, removeHook, mayRemoveFor } from './helpers.js';

/**
 * Excluded from the suite's webhooks (registered as if hookkeeper ran in kube-system), so only this scenario's
 * hookkeeper judges it.
 */
const NS = 'kube-system';
const WEBHOOK = 'hookkeeper-e2e-hook-owners';
const STORAGE = { name: 'storage.example.com/Migrate', owner: 'team/storage' };
const ORPHAN = { name: 'BackupFileSystem', owner: 'my-backup-controller' };
const GRANT = 'hookkeeper-e2e:webhook-owners';

const grantRule = (owner: string) => ({
  apiGroups: ['hookkeeper.io'],
  resources: ['hookowners'],
  verbs: ['remove'],
  resourceNames: [owner],
});

export const hookOwnersWebhookScenarios: Scenario = (env) => {
  describe("hook owners through RBAC: the webhook as hookkeeper's ServiceAccount, real identities", () => {
    let hookkeeper: Hookkeeper | undefined;
    let policyFile = '';
    let seq = 0;
    const rbac = () => env().plane.kubeConfig('admin').makeApiClient(RbacAuthorizationV1Api);
    const allowedBySar = (user: string, owner: string): Promise<boolean> => mayRemoveFor(env(), user, owner);
    /** A fresh Machine in NS with the etcd hook, team/storage's and an owner nobody is granted. */
    const machine = async (): Promise<string> => {
      const name = `owners-${++seq}`;
      await env()
        .machines('admin')
        .create(NS, openshiftMachine({ name, namespace: NS, role: 'master', preDrain: [ETCD_HOOK, STORAGE, ORPHAN] }));
      return name;
    };
    const remove = async (as: 'alice' | 'bob', name: string, hook: string, dryRun = false) => {
      const client = env().machines(as);
      const current = await client.get(NS, name);
      return client.patch(NS, name, removeHook(current, 'preDrain', hook), dryRun ? { dryRun: true } : {});
    };
    /** hookkeeper caches each access answer for 5 s: a new grant shows once the cached denial has expired. */
    const onceAllowed = (as: 'alice' | 'bob', name: string, hook: string) =>
      pollUntil(`hookkeeper to let ${as} remove ${hook}`, 30_000, async () => {
        try {
          await remove(as, name, hook, true);
          return true;
        } catch {
          return undefined;
        }
      });
    const grant = async (owner: string, user: string): Promise<void> => {
      const name = `${GRANT}:${owner.replace(/\//g, '-')}`;
      await rbac().createClusterRole({ body: { metadata: { name }, rules: [grantRule(owner)] } });
      await rbac().createClusterRoleBinding({
        body: {
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
        },
      });
      await pollUntil(`RBAC to let ${user} remove hookowners/${owner}`, 30_000, async () =>
        (await allowedBySar(user, owner)) ? true : undefined,
      );
    };

    before(async () => {
      const plane = env().plane;
      const admin = plane.identities.admin.token;
      const ns = await rawRequest({ url: `${plane.server}/api/v1/namespaces/${NS}`, ca: plane.caPem, token: admin });
      if (ns.status === 404)
        await plane
          .kubeConfig('admin')
          .makeApiClient(CoreV1Api)
          .createNamespace({ body: { metadata: { name: NS } } });
      // Start from no grant naming team/storage (the API server's and the index's view alike).
      await pollUntil('no grant of team/storage to bob', 30_000, async () =>
        (await allowedBySar('bob', STORAGE.owner)) ? undefined : true,
      );
      hookkeeper = await startHookkeeper(plane, {
        name: 'hookkeeper-owners',
        config: { apiVersion: 'hookkeeper.io/v1alpha1', kind: 'Policy', unverifiedRemoval: 'warn' },
        args: ['--kubeconfig', await plane.kubeConfigFile('hookkeeper'), '--reload-interval', '1'],
      });
      policyFile = join(plane.dir, 'hookkeeper-owners', 'policy.yaml');
      const [validating] = renderWebhookConfigurations({
        caBundle: caBundle(hookkeeper.caPem),
        url: hookkeeper.url,
        name: WEBHOOK,
      });
      if (!validating) throw new Error('no validating webhook configuration rendered');
      const webhooks = (validating['webhooks'] as Record<string, unknown>[]).map((w) => ({
        ...w,
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [NS] }] },
      }));
      await createRaw(
        plane.server,
        plane.caPem,
        admin,
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        {
          ...validating,
          webhooks,
        },
      );
      // Registered once alice's removal of the etcd hook (registered to the etcd operator) is refused in NS.
      const probe = await machine();
      await pollUntil('the hook-owners webhook to judge Machines in its namespace', 30_000, async () => {
        try {
          await remove('alice', probe, ETCD_HOOK.name, true);
          return undefined;
        } catch {
          return true;
        }
      });
    });

    after(async () => {
      const plane = env().plane;
      await rawRequest({
        url: `${plane.server}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${WEBHOOK}`,
        ca: plane.caPem,
        token: plane.identities.admin.token,
        method: 'DELETE',
      });
      await hookkeeper?.stop();
      // The grants made here (ours, and the ones the denial's kubectl line made) go with the group: later groups,
      // and the native policies' authorizer checks in the other admission modes, must not inherit them.
      const names = (items: Array<{ metadata?: { name?: string } }>) =>
        items.map((i) => i.metadata?.name ?? '').filter((n) => n.startsWith(GRANT) || n.startsWith('hookowner-'));
      for (const name of names((await rbac().listClusterRoleBinding()).items))
        await rbac().deleteClusterRoleBinding({ name });
      for (const name of names((await rbac().listClusterRole()).items)) await rbac().deleteClusterRole({ name });
      for (const [user, owner] of [
        ['bob', STORAGE.owner],
        ['bob', ETCD_HOOK.owner],
        ['alice', STORAGE.owner],
      ] as const)
        await pollUntil(`RBAC to stop letting ${user} remove hookowners/${owner}`, 30_000, async () =>
          (await allowedBySar(user, owner)) ? undefined : true,
        );
    });

    test('no grant names team/storage yet: alice removes its hook, allowed with the unverified warning', async () => {
      const name = await machine();
      const { object, warnings } = await remove('alice', name, STORAGE.name);
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK, ORPHAN]);
      assert.ok(
        warnings.includes(
          'unverified: hook storage.example.com/Migrate of team/storage; grant remove on hookowners/team/storage; by alice',
        ),
        warnings.join('\n'),
      );
    });

    test('a ClusterRole and binding grant bob team/storage: bob removes its hook, alice is denied', async () => {
      await grant(STORAGE.owner, 'bob');
      const name = await machine();
      // The index follows the new binding through its watch: alice's refusal shows it has.
      const refusal = await pollUntil('the index to see the team/storage grant', 30_000, async () => {
        try {
          await remove('alice', name, STORAGE.name, true);
          return undefined;
        } catch (err) {
          return rejected(() => Promise.reject(err));
        }
      });
      assert.equal(refusal.by, 'webhook');
      assert.equal(
        refusal.message,
        `${DENIAL_PREFIX}spec.lifecycleHooks.preDrain[1]: Forbidden: "alice" may not remove preDrain hook ` +
          '"storage.example.com/Migrate" owned by "team/storage"; only its owner may: whom RBAC allows ' +
          '(break-glass: group system:masters); to let "alice" act for it: kubectl create clusterrole ' +
          'hookowner-team-storage --verb=remove --resource=hookowners.hookkeeper.io --resource-name=team/storage && ' +
          'kubectl create clusterrolebinding hookowner-team-storage-alice --clusterrole=hookowner-team-storage --user=alice',
      );
      const { object, warnings } = await remove('bob', name, STORAGE.name);
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK, ORPHAN]);
      assert.deepEqual(warnings, []);
    });

    test('a hook whose owner nobody holds: removed with a warning by default', async () => {
      const name = await machine();
      const { object, warnings } = await remove('bob', name, ORPHAN.name);
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK, STORAGE]);
      assert.ok(
        warnings.includes(
          'unverified: hook BackupFileSystem of my-backup-controller; grant remove on hookowners/my-backup-controller; by bob',
        ),
        warnings.join('\n'),
      );
    });

    test('a grant of clusteroperator/etcd adds bob to the registered etcd owner', async () => {
      const name = await machine();
      const refusal = await rejected(() => remove('bob', name, ETCD_HOOK.name));
      assert.match(
        refusal.message,
        /"bob" may not remove preDrain hook "EtcdQuorumOperator" owned by "clusteroperator\/etcd"; only its owner may: system:serviceaccount:openshift-etcd-operator:etcd-operator/,
      );
      await grant(ETCD_HOOK.owner, 'bob');
      await onceAllowed('bob', name, ETCD_HOOK.name);
      const { object } = await remove('bob', name, ETCD_HOOK.name);
      assert.deepEqual(hooksOf(object, 'preDrain'), [STORAGE, ORPHAN]);
      // alice still may not.
      const other = await machine();
      const refused = await rejected(() => remove('alice', other, ETCD_HOOK.name));
      assert.match(refused.message, /"alice" may not remove preDrain hook "EtcdQuorumOperator"/);
    });

    test(
      "the denial's kubectl line, run as given with the CRD installed, grants what it says",
      { skip: kubectlSkip },
      async () => {
        const kubectl = requireKubectl();
        const plane = env().plane;
        const admin = await plane.kubeConfigFile('admin');
        const crd = spawnSync(
          kubectl,
          ['--kubeconfig', admin, 'apply', '-f', join(plane.repoRoot, HOOKOWNERS_CRD_FILE)],
          {
            encoding: 'utf8',
          },
        );
        assert.equal(crd.status, 0, `${crd.stdout}${crd.stderr}`);
        const name = await machine();
        const refusal = await rejected(() => remove('alice', name, STORAGE.name));
        const line = /to let "alice" act for it: (kubectl .*)$/.exec(refusal.message)?.[1];
        assert.ok(line, refusal.message);
        // Run by a shell, as a user pastes it; kubectl here is the one the suite found, with the admin's credentials.
        const run = spawnSync('sh', ['-c', line.replaceAll('kubectl ', `"$KUBECTL_BIN" --kubeconfig "$ADMIN" `)], {
          encoding: 'utf8',
          env: { ...process.env, KUBECTL_BIN: kubectl, ADMIN: admin },
        });
        assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
        await pollUntil('RBAC to let alice remove hookowners/team/storage', 30_000, async () =>
          (await allowedBySar('alice', STORAGE.owner)) ? true : undefined,
        );
        await onceAllowed('alice', name, STORAGE.name);
        const { object, warnings } = await remove('alice', name, STORAGE.name);
        assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK, ORPHAN]);
        assert.deepEqual(warnings, []);
      },
    );

    test('unverifiedRemoval: deny refuses the hook whose owner nobody holds', async () => {
      await replaceFile(
        policyFile,
        JSON.stringify({ apiVersion: 'hookkeeper.io/v1alpha1', kind: 'Policy', unverifiedRemoval: 'deny' }),
      );
      const name = await machine();
      const refusal = await pollUntil('the deny policy to be reloaded', 30_000, async () => {
        try {
          await remove('bob', name, ORPHAN.name, true);
          return undefined;
        } catch (err) {
          return rejected(() => Promise.reject(err));
        }
      });
      assert.match(
        refusal.message,
        /"bob" may not remove preDrain hook "BackupFileSystem" owned by "my-backup-controller"; no identity is registered or granted for that owner and unverifiedRemoval is deny/,
      );
      // A granted owner is unaffected: bob still removes team/storage's hook.
      const { object } = await remove('bob', name, STORAGE.name);
      assert.deepEqual(hooksOf(object, 'preDrain'), [ETCD_HOOK, ORPHAN]);
    });
  });
};
