// Hook ownership through RBAC, the cluster side: first what the real API server's RBAC authorizer
// answers for `remove` on hookowners.hookkeeper.io with owner names as resourceNames (slashes included), then the
// RBAC index and the SubjectAccessReview client run as hookkeeper's ServiceAccount with the shipped ClusterRole.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  AuthorizationV1Api,
  CoreV1Api,
  RbacAuthorizationV1Api,
  type V1ClusterRole,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { WILDCARD_PROBE_OWNER } from '../../../src/core/ownership.js';
import { createAccessReviewer, type AccessReviewer } from '../../../src/infrastructure/kube/subject-access-review.js';
import { kubeConfigAccess } from '../../../src/infrastructure/kube/api-requests.js';
import { createOwnerContext } from '../../../src/infrastructure/kube/owner-context.js';
import { ownerFactsGatherer } from '../../../src/infrastructure/kube/owner-facts.js';
import { createRbacIndex, type RbacIndex } from '../../../src/infrastructure/kube/rbac-index.js';
import { silentLogger } from '../../../src/infrastructure/log.js';
import { openshiftMachine } from '../../../testing/control-plane/machines.js';
import { kubectlSkip, requireKubectl } from '../harness/kubectl.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { Scenario } from '../harness/suite.js';

const NS1 = 'hookowners-ns1';
const NS2 = 'hookowners-ns2';
const PREFIX = 'hookkeeper-e2e:hookowners';

const grantRule = (names?: string[]): V1PolicyRule => ({
  apiGroups: ['hookkeeper.io'],
  resources: ['hookowners'],
  verbs: ['remove'],
  ...(names ? { resourceNames: names } : {}),
});
const user = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
const clusterRoleRef = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name });

/** The CRD hookkeeper ships (webhook-config/base): it makes hookowners.hookkeeper.io discoverable, storing nothing. */
export const HOOKOWNERS_CRD_FILE = join('webhook-config', 'base', 'hookowners-crd.yaml');

interface Sar {
  allowed: boolean;
  reason: string;
}

export const hookOwnersRbacScenarios: Scenario = (env) => {
  /** A SubjectAccessReview asked by the admin: the authorizer's own answer. */
  const sar = async (username: string, owner: string | undefined, namespace?: string): Promise<Sar> => {
    const review = await env()
      .plane.kubeConfig('admin')
      .makeApiClient(AuthorizationV1Api)
      .createSubjectAccessReview({
        body: {
          spec: {
            user: username,
            groups: ['system:authenticated'],
            resourceAttributes: {
              group: 'hookkeeper.io',
              resource: 'hookowners',
              verb: 'remove',
              ...(owner !== undefined ? { name: owner } : {}),
              ...(namespace ? { namespace } : {}),
            },
          },
        },
      });
    return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
  };
  const rbac = () => env().plane.kubeConfig('admin').makeApiClient(RbacAuthorizationV1Api);

  describe('hook owners through RBAC: what the API server answers', () => {
    let stored: V1ClusterRole | undefined;

    before(async () => {
      const core = env().plane.kubeConfig('admin').makeApiClient(CoreV1Api);
      for (const name of [NS1, NS2]) await core.createNamespace({ body: { metadata: { name } } });
      const api = rbac();
      // bob: team/storage, cluster-wide.
      stored = await api.createClusterRole({
        body: { metadata: { name: `${PREFIX}:storage` }, rules: [grantRule(['team/storage'])] },
      });
      await api.createClusterRoleBinding({
        body: {
          metadata: { name: `${PREFIX}:storage` },
          roleRef: clusterRoleRef(`${PREFIX}:storage`),
          subjects: [user('bob')],
        },
      });
      // carol: team/db, in NS1 only (a Role and a RoleBinding there).
      await api.createNamespacedRole({
        namespace: NS1,
        body: { metadata: { name: 'db-hook-owner' }, rules: [grantRule(['team/db'])] },
      });
      await api.createNamespacedRoleBinding({
        namespace: NS1,
        body: {
          metadata: { name: 'db-hook-owner' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'db-hook-owner' },
          subjects: [user('carol')],
        },
      });
      // dave: a custom role with every verb on every resource; erin: the bootstrap cluster-admin.
      await api.createClusterRole({
        body: {
          metadata: { name: `${PREFIX}:everything` },
          rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
        },
      });
      await api.createClusterRoleBinding({
        body: {
          metadata: { name: `${PREFIX}:everything` },
          roleRef: clusterRoleRef(`${PREFIX}:everything`),
          subjects: [user('dave')],
        },
      });
      await api.createClusterRoleBinding({
        body: {
          metadata: { name: `${PREFIX}:cluster-admin` },
          roleRef: clusterRoleRef('cluster-admin'),
          subjects: [user('erin')],
        },
      });
      // The RBAC authorizer reads through informers: wait until it has seen every binding above.
      for (const [who, owner, ns] of [
        ['bob', 'team/storage', undefined],
        ['carol', 'team/db', NS1],
        ['dave', 'team/storage', undefined],
        ['erin', 'team/storage', undefined],
      ] as const)
        await pollUntil(`RBAC to let ${who} remove hookowners/${owner}`, 30_000, async () =>
          (await sar(who, owner, ns)).allowed ? true : undefined,
        );
    });

    test('a resourceName with a slash is accepted and stored as given', () => {
      assert.deepEqual(stored?.rules?.[0]?.resourceNames, ['team/storage']);
    });

    test('a ClusterRole naming team/storage, bound to bob: bob may act for team/storage in any namespace and none', async () => {
      assert.equal((await sar('bob', 'team/storage')).allowed, true);
      assert.equal((await sar('bob', 'team/storage', NS1)).allowed, true);
      assert.match((await sar('bob', 'team/storage')).reason, /ClusterRoleBinding "hookkeeper-e2e:hookowners:storage"/);
    });

    test('...but not for another owner, not for every owner (no name), and alice not at all', async () => {
      assert.equal((await sar('bob', 'team/other')).allowed, false);
      assert.equal((await sar('bob', 'team')).allowed, false);
      assert.equal((await sar('bob', undefined)).allowed, false);
      assert.equal((await sar('alice', 'team/storage')).allowed, false);
    });

    test('a Role and RoleBinding in ns1 allow carol only with namespace ns1 in the review', async () => {
      assert.equal((await sar('carol', 'team/db', NS1)).allowed, true);
      assert.equal((await sar('carol', 'team/db', NS2)).allowed, false);
      assert.equal((await sar('carol', 'team/db')).allowed, false);
      assert.equal((await sar('carol', 'team/storage', NS1)).allowed, false);
    });

    test('wildcard roles (a custom */*/*, and cluster-admin) allow every owner, named or not, the probe owner too', async () => {
      for (const who of ['dave', 'erin']) {
        assert.equal((await sar(who, 'team/storage')).allowed, true, who);
        assert.equal((await sar(who, 'clusteroperator/etcd', NS2)).allowed, true, who);
        assert.equal((await sar(who, undefined)).allowed, true, who);
        assert.equal((await sar(who, WILDCARD_PROBE_OWNER, NS1)).allowed, true, who);
      }
      // A grant naming owners does not reach the probe: that is how hookkeeper tells it from wildcard rights.
      assert.equal((await sar('bob', WILDCARD_PROBE_OWNER)).allowed, false);
      assert.equal((await sar('carol', WILDCARD_PROBE_OWNER, NS1)).allowed, false);
    });
  });

  describe('hook owners through RBAC: the imperative grant with kubectl', () => {
    const kubectl = async (...args: string[]): Promise<{ status: number; stdout: string; out: string }> => {
      const kc = await env().plane.kubeConfigFile('admin');
      const r = spawnSync(requireKubectl(), ['--kubeconfig', kc, ...args], { encoding: 'utf8' });
      return { status: r.status ?? -1, stdout: r.stdout, out: `${r.stdout}${r.stderr}` };
    };
    const grant = (name: string, ...extra: string[]) =>
      kubectl(
        'create',
        'clusterrole',
        name,
        '--verb=remove',
        '--resource=hookowners.hookkeeper.io',
        '--resource-name=team/kubectl',
        ...extra,
      );

    test(
      'kubectl create clusterrole refuses hookowners.hookkeeper.io while no API serves it, and takes it once the shipped CRD does',
      { skip: kubectlSkip },
      async () => {
        // kubectl checks --resource against discovery on the client side, even for a dry run.
        const refused = await grant(`${PREFIX}:kubectl-refused`, '--dry-run=client', '-o', 'yaml');
        assert.notEqual(refused.status, 0, refused.out);
        assert.match(refused.out, /the server doesn't have a resource type "hookowners"/);
        const applied = await kubectl('apply', '-f', join(env().plane.repoRoot, HOOKOWNERS_CRD_FILE));
        assert.equal(applied.status, 0, applied.out);
        const established = await kubectl(
          'wait',
          '--for=condition=Established',
          'crd/hookowners.hookkeeper.io',
          '--timeout=30s',
        );
        assert.equal(established.status, 0, established.out);
        const name = `${PREFIX}:kubectl`;
        const created = await grant(name, '-o', 'json');
        assert.equal(created.status, 0, created.out);
        assert.deepEqual((JSON.parse(created.stdout) as V1ClusterRole).rules, [grantRule(['team/kubectl'])]);
        const bound = await kubectl('create', 'clusterrolebinding', name, `--clusterrole=${name}`, '--user=hana');
        assert.equal(bound.status, 0, bound.out);
        await pollUntil('RBAC to let hana remove hookowners/team/kubectl', 30_000, async () =>
          (await sar('hana', 'team/kubectl')).allowed ? true : undefined,
        );
        // `kubectl auth can-i` splits resource/name at the first slash: the owner keeps its own.
        const canI = await kubectl('auth', 'can-i', 'remove', 'hookowners.hookkeeper.io/team/kubectl', '--as=hana');
        assert.equal(canI.status, 0, canI.out);
        assert.equal(canI.stdout.trim(), 'yes');
      },
    );
  });

  describe("hook owners through RBAC: the index and the SubjectAccessReview client as hookkeeper's ServiceAccount", () => {
    let index: RbacIndex | undefined;
    let reviewer: AccessReviewer | undefined;
    const idx = (): RbacIndex => {
      assert.ok(index);
      return index;
    };

    before(async () => {
      const kc = env().plane.kubeConfig('hookkeeper');
      index = createRbacIndex({ kubeConfig: kc, logger: silentLogger() });
      reviewer = createAccessReviewer({ access: kubeConfigAccess(kc), logger: silentLogger(), budgetMs: 5_000 });
      await pollUntil('the RBAC index to list', 30_000, async () => (idx().ready() ? true : undefined));
    });

    after(async () => {
      index?.stop();
      reviewer?.close();
      // Later groups (hook-owners-webhook) start from a cluster where no one is granted an owner by name.
      const api = rbac();
      const prefixed = (items: { metadata?: { name?: string } }[]) =>
        items.map((i) => i.metadata?.name ?? '').filter((n) => n.startsWith(PREFIX));
      for (const name of prefixed((await api.listClusterRoleBinding()).items))
        await api.deleteClusterRoleBinding({ name });
      for (const name of prefixed((await api.listClusterRole()).items)) await api.deleteClusterRole({ name });
    });

    test('the index (listed with the shipped ClusterRole) knows which owners are protected where', () => {
      assert.equal(idx().healthy(), true);
      assert.equal(idx().protectedIn('team/storage', NS1), true);
      assert.equal(idx().protectedIn('team/storage', undefined), true);
      assert.equal(idx().protectedIn('team/db', NS1), true);
      assert.equal(idx().protectedIn('team/db', NS2), false);
      assert.equal(idx().protectedIn('team/db', undefined), false);
      // Wildcard grants (cluster-admin, */*/*) let their subjects act for every owner but protect none.
      assert.equal(idx().protectedIn('team/other', NS1), false);
    });

    test('subjectsFor lists the named grants, then the grants of every owner (cluster-admin among them)', () => {
      const subjects = idx().subjectsFor('team/storage', NS1);
      const named = subjects.filter((s) => !s.allNames).map((s) => `${s.kind}/${s.name} via ${s.binding.name}`);
      assert.deepEqual(named, [`User/bob via ${PREFIX}:storage`]);
      const every = subjects.filter((s) => s.allNames);
      assert.ok(every.some((s) => s.name === 'dave' && s.role.name === `${PREFIX}:everything`));
      assert.ok(every.some((s) => s.name === 'erin' && s.role.name === 'cluster-admin'));
      assert.ok(every.some((s) => s.kind === 'Group' && s.name === 'system:masters'));
      assert.deepEqual(
        idx()
          .subjectsFor('team/db', NS1)
          .filter((s) => !s.allNames)
          .map((s) => `${s.kind}/${s.name} via ${s.binding.namespace}/${s.binding.name}`),
        [`User/carol via ${NS1}/db-hook-owner`],
      );
    });

    test('the index follows grants as they are bound and unbound', async () => {
      const api = rbac();
      const name = `${PREFIX}:late`;
      await api.createClusterRole({ body: { metadata: { name }, rules: [grantRule(['team/late'])] } });
      assert.equal(idx().protectedIn('team/late', NS1), false);
      await api.createClusterRoleBinding({
        body: { metadata: { name }, roleRef: clusterRoleRef(name), subjects: [user('frank')] },
      });
      await pollUntil('the index to see the new binding', 10_000, async () =>
        idx().protectedIn('team/late', NS1) ? true : undefined,
      );
      await api.deleteClusterRoleBinding({ name });
      await pollUntil('the index to see the binding go', 10_000, async () =>
        idx().protectedIn('team/late', NS1) ? undefined : true,
      );
      await api.deleteClusterRole({ name });
    });

    test('an aggregated ClusterRole counts by the rules stored in it (what the aggregation controller writes)', async () => {
      const api = rbac();
      const name = `${PREFIX}:aggregated`;
      // No controller-manager runs here: the rules are written as the clusterrole-aggregation controller would.
      await api.createClusterRole({
        body: {
          metadata: { name },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'hookkeeper.io/aggregate-to-owners': 'true' } }] },
          rules: [grantRule(['team/aggregated'])],
        },
      });
      await api.createClusterRoleBinding({
        body: { metadata: { name }, roleRef: clusterRoleRef(name), subjects: [user('gina')] },
      });
      await pollUntil('the index to see the aggregated role bound', 10_000, async () =>
        idx().protectedIn('team/aggregated', NS2) ? true : undefined,
      );
      await pollUntil('RBAC to let gina remove hookowners/team/aggregated', 30_000, async () =>
        (await sar('gina', 'team/aggregated')).allowed ? true : undefined,
      );
      await api.deleteClusterRoleBinding({ name });
      await api.deleteClusterRole({ name });
    });

    test('the SubjectAccessReview client answers as the authorizer does', async () => {
      assert.ok(reviewer);
      const bob = { user: 'bob', groups: ['system:authenticated'] };
      assert.deepEqual(await reviewer.review(bob, ['team/storage', 'team/other'], NS1), {
        'team/storage': 'allowed',
        'team/other': 'denied',
      });
      assert.deepEqual(await reviewer.review({ user: 'alice', groups: [] }, ['team/storage'], NS1), {
        'team/storage': 'denied',
      });
      const carol = { user: 'carol', groups: ['system:authenticated'] };
      assert.deepEqual(await reviewer.review(carol, ['team/db'], NS1), { 'team/db': 'allowed' });
      assert.deepEqual(await reviewer.review(carol, ['team/db'], NS2), { 'team/db': 'denied' });
      // cluster-admin is allowed the reserved probe owner too: wildcard rights, not a grant naming the owner.
      assert.deepEqual(await reviewer.review({ user: 'erin', groups: [] }, ['clusteroperator/etcd'], NS2), {
        'clusteroperator/etcd': 'wildcard',
      });
      assert.deepEqual(await reviewer.review({ user: 'dave', groups: [] }, ['team/storage'], NS1), {
        'team/storage': 'wildcard',
      });
    });

    test('gather: the facts for bob removing a team/storage hook in ns1, from the live index and reviews', async () => {
      assert.ok(reviewer);
      const gather = ownerFactsGatherer({ index: idx(), reviewer, ownersToCheck: () => ['team/storage', 'team/db'] });
      const hooks = [
        { name: 'e2e.hookkeeper.io/Detach', owner: 'team/storage' },
        { name: 'e2e.hookkeeper.io/Dump', owner: 'team/db' },
        { name: 'e2e.hookkeeper.io/Free', owner: 'team/nobody' },
      ];
      const machine = (preDrain: typeof hooks) => openshiftMachine({ name: 'gather', namespace: NS1, preDrain });
      const facts = await gather({
        operation: 'UPDATE',
        kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
        namespace: NS1,
        name: 'gather',
        object: machine([]),
        oldObject: machine(hooks),
        userInfo: { username: 'bob', groups: ['system:authenticated'] },
        dryRun: false,
      });
      assert.deepEqual([...facts.granted].sort(), ['team/db', 'team/storage']);
      assert.deepEqual(facts.access, { 'team/storage': 'allowed', 'team/db': 'denied' });
      assert.equal(facts.grantsKnown, true);
    });

    test("the owner context serve is to run: ready once listed, then the same facts, as hookkeeper's ServiceAccount", async () => {
      const ctx = createOwnerContext({
        loadKubeConfig: () => env().plane.kubeConfig('hookkeeper'),
        logger: silentLogger(),
        ownersToCheck: () => ['team/db'],
        budgetMs: 5_000,
      });
      try {
        await pollUntil('the owner context to be ready', 30_000, async () => (ctx.ready() ? true : undefined));
        const machine = openshiftMachine({ name: 'ctx', namespace: NS1 });
        const facts = await ctx.gather({
          operation: 'UPDATE',
          kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
          namespace: NS1,
          name: 'ctx',
          object: machine,
          oldObject: machine,
          userInfo: { username: 'carol', groups: ['system:authenticated'] },
          dryRun: false,
        });
        assert.deepEqual(facts, { granted: new Set(['team/db']), access: { 'team/db': 'allowed' }, grantsKnown: true });
      } finally {
        ctx.stop();
      }
    });

    test('credentials that may not create SubjectAccessReviews get "unknown", never an answer', async () => {
      const asAlice = createAccessReviewer({
        access: kubeConfigAccess(env().plane.kubeConfig('alice')),
        logger: silentLogger(),
        budgetMs: 5_000,
      });
      try {
        assert.deepEqual(await asAlice.review({ user: 'bob', groups: [] }, ['team/storage'], NS1), {
          'team/storage': 'unknown',
        });
        assert.equal(asAlice.size(), 0);
      } finally {
        asAlice.close();
      }
    });
  });
};
