// serve's review context: parents and hook-owner facts gathered together, a value when neither needs a request.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Ownership, ReviewContext, ReviewInput } from '../../src/core/types.js';
import {
  clusterSource,
  requireClusterSource,
  SERVICE_ACCOUNT_TOKEN,
} from '../../src/infrastructure/kube/kubeconfig-source.js';
import { AppError } from '../../src/errors.js';
import { reviewContextGatherer } from '../../src/infrastructure/kube/review-context.js';

const MACHINE: ReviewInput = {
  operation: 'UPDATE',
  kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
  namespace: 'ns1',
  name: 'm',
  object: { metadata: { name: 'm' } },
  oldObject: { metadata: { name: 'm' } },
  userInfo: { username: 'bob', groups: [] },
  dryRun: false,
};
const POD: ReviewInput = { ...MACHINE, kind: { group: '', version: 'v1', kind: 'Pod' } };
const OWNERSHIP: Ownership = { granted: new Set(['team/storage']), access: {}, grantsKnown: true };
const PARENTS: ReviewContext = { parents: { k: { found: true, uid: 'u1', deleting: false, namespaced: true } } };

type Facts = Ownership | Promise<Ownership | undefined> | undefined;

function gatherer(parents: Promise<ReviewContext> | undefined, owners: Facts) {
  const asked: string[] = [];
  const g = reviewContextGatherer(
    { gather: () => parents },
    {
      gather: (input) => {
        asked.push(input.kind.kind);
        return owners;
      },
    },
  );
  return { g, asked };
}

describe('reviewContextGatherer', () => {
  test('owner facts known from memory and no parent needed: a value, no promise', () => {
    const { g } = gatherer(undefined, OWNERSHIP);
    assert.deepEqual(g(MACHINE), { ownership: OWNERSHIP });
  });

  test('no cluster (no owner facts) and no parent: nothing to gather', () => {
    assert.equal(gatherer(undefined, undefined).g(MACHINE), undefined);
  });

  test('objects without hooks are not asked about owners', () => {
    const { g, asked } = gatherer(undefined, OWNERSHIP);
    assert.equal(g(POD), undefined);
    assert.deepEqual(asked, []);
  });

  test('parents and owner reviews in flight together, combined into one context', async () => {
    let resolveOwners: (o: Ownership) => void = () => undefined;
    const owners = new Promise<Ownership>((r) => {
      resolveOwners = r;
    });
    const { g } = gatherer(Promise.resolve(PARENTS), owners);
    const out = g(MACHINE);
    assert.ok(out instanceof Promise);
    resolveOwners(OWNERSHIP);
    assert.deepEqual(await out, { ...PARENTS, ownership: OWNERSHIP });
  });

  test('parents with owner facts from memory; parents alone when there is no cluster for owners', async () => {
    assert.deepEqual(await gatherer(Promise.resolve(PARENTS), OWNERSHIP).g(MACHINE), {
      ...PARENTS,
      ownership: OWNERSHIP,
    });
    assert.deepEqual(await gatherer(Promise.resolve(PARENTS), Promise.resolve(undefined)).g(MACHINE), PARENTS);
  });

  test("a migrated Machine's twin joins the other facts", async () => {
    const twin = { found: true, object: { kind: 'Machine' } } as const;
    const g = reviewContextGatherer(
      { gather: () => undefined },
      { gather: () => OWNERSHIP },
      { gather: () => Promise.resolve({ twin }) },
    );
    assert.deepEqual(await g(MACHINE), { ownership: OWNERSHIP, twin });
  });

  test("a quorum hook's removal: the cluster's Machines join the other facts", async () => {
    const quorum = { found: true, machines: [{ kind: 'Machine' }] } as const;
    const g = reviewContextGatherer(
      { gather: () => undefined },
      { gather: () => OWNERSHIP },
      { gather: () => undefined },
      { gather: () => Promise.resolve({ quorum }) },
    );
    assert.deepEqual(await g(MACHINE), { ownership: OWNERSHIP, quorum });
  });
});

describe('clusterSource', () => {
  const none = () => false;
  test('--kubeconfig, then $KUBECONFIG, then ~/.kube/config, then the pod service account; else none', () => {
    assert.deepEqual(clusterSource('/f', { KUBECONFIG: '/k' }, none), { from: 'flag', file: '/f' });
    assert.deepEqual(clusterSource(undefined, { KUBECONFIG: '/k:/l' }, none), {
      from: 'variable',
      files: ['/k', '/l'],
    });
    assert.deepEqual(
      clusterSource(undefined, { HOME: '/h' }, (p) => p === '/h/.kube/config'),
      { from: 'default-file', file: '/h/.kube/config' },
    );
    const inPod = (p: string) => p === SERVICE_ACCOUNT_TOKEN;
    assert.deepEqual(clusterSource(undefined, { HOME: '/h', KUBERNETES_SERVICE_HOST: '10.0.0.1' }, inPod), {
      from: 'in-cluster',
    });
    assert.equal(
      clusterSource(undefined, { HOME: '/h' }, inPod),
      undefined,
      'a token without the service host is not a pod',
    );
    assert.equal(clusterSource(undefined, { HOME: '/h', KUBERNETES_SERVICE_HOST: '10.0.0.1' }, none), undefined);
  });

  test("none, or --context where there are no contexts: a usage error in hookkeeper's words", () => {
    assert.throws(
      () => requireClusterSource(undefined, undefined, { HOME: '/h' }, none),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'USAGE' &&
        e.message ===
          'no kubeconfig: no --kubeconfig, KUBECONFIG is not set, no /h/.kube/config, and not in a pod; give --kubeconfig FILE or set KUBECONFIG',
    );
    const inPod = (p: string) => p === SERVICE_ACCOUNT_TOKEN;
    assert.throws(
      () => requireClusterSource(undefined, 'prod', { HOME: '/h', KUBERNETES_SERVICE_HOST: '10.0.0.1' }, inPod),
      /^AppError: --context prod: no kubeconfig to choose a context from: the cluster is the pod's service account/,
    );
  });
});
