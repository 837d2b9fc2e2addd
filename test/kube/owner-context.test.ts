// Hook ownership through RBAC as serve is to run it: set up once from the kubeconfig, readiness held only while the
// index has not listed (at most the grace), and facts that say RBAC was not consulted when it cannot be.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import type { ReviewInput } from '../../src/core/types.js';
import type { AccessReviewer } from '../../src/infrastructure/kube/subject-access-review.js';
import { createOwnerContext, type OwnerContextOptions } from '../../src/infrastructure/kube/owner-context.js';
import type { RbacIndex } from '../../src/infrastructure/kube/rbac-index.js';
import { silentLogger } from '../../src/infrastructure/log.js';

const INPUT: ReviewInput = {
  operation: 'UPDATE',
  kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
  namespace: 'ns1',
  name: 'm',
  object: { metadata: { name: 'm', namespace: 'ns1' }, spec: { lifecycleHooks: {} } },
  oldObject: {
    metadata: { name: 'm', namespace: 'ns1' },
    spec: { lifecycleHooks: { preDrain: [{ name: 'a/Detach', owner: 'team/storage' }] } },
  },
  userInfo: { username: 'bob', groups: [] },
  dryRun: false,
};

function fakes() {
  let listed = false;
  const state = { indexStopped: false, reviewerClosed: false, reviews: 0 };
  const index: RbacIndex = {
    protectedIn: (owner) => owner === 'team/storage',
    subjectsFor: () => [],
    ready: () => listed,
    healthy: () => listed,
    stop: () => {
      state.indexStopped = true;
    },
  };
  const reviewer: AccessReviewer = {
    review: (_subject, owners) => {
      state.reviews++;
      return Promise.resolve(Object.fromEntries(owners.map((o) => [o, 'allowed' as const])));
    },
    size: () => 0,
    close: () => {
      state.reviewerClosed = true;
    },
  };
  return {
    state,
    list: () => {
      listed = true;
    },
    options: (o: Partial<OwnerContextOptions> = {}): OwnerContextOptions => ({
      loadKubeConfig: () => new KubeConfig(),
      logger: silentLogger(),
      ownersToCheck: () => ['team/storage'],
      createIndex: () => index,
      createReviewer: () => reviewer,
      ...o,
    }),
  };
}

describe('createOwnerContext', () => {
  test('not ready until the index has listed; then ready for good', async () => {
    const f = fakes();
    let clock = 0;
    const ctx = createOwnerContext(f.options({ now: () => clock, syncGraceMs: 10_000 }));
    assert.equal(ctx.ready(), false);
    await setImmediate();
    assert.equal(ctx.ready(), false, 'set up, not listed');
    clock = 5_000;
    f.list();
    assert.equal(ctx.ready(), true);
    ctx.stop();
  });

  test('an index that never lists holds readiness only for the grace; its facts say grants are unknown', async () => {
    const f = fakes();
    let clock = 0;
    const ctx = createOwnerContext(f.options({ now: () => clock, syncGraceMs: 10_000 }));
    await setImmediate();
    clock = 9_999;
    assert.equal(ctx.ready(), false);
    clock = 10_000;
    assert.equal(ctx.ready(), true);
    const facts = await ctx.gather(INPUT);
    assert.ok(facts);
    assert.deepEqual([...facts.granted], ['team/storage']);
    assert.equal(facts.grantsKnown, false);
    assert.deepEqual(facts.access, { 'team/storage': 'allowed' });
    ctx.stop();
  });

  test('a review during set-up waits for it; afterwards facts come from the index and the reviews', async () => {
    const f = fakes();
    f.list();
    const ctx = createOwnerContext(f.options());
    const facts = await ctx.gather(INPUT);
    assert.ok(facts);
    assert.equal(facts.grantsKnown, true);
    assert.deepEqual(facts.access, { 'team/storage': 'allowed' });
    assert.equal(f.state.reviews, 1);
    ctx.stop();
    assert.deepEqual([f.state.indexStopped, f.state.reviewerClosed], [true, true]);
  });

  test('no kubeconfig (no cluster): serve anyway (ready), and no ownership fact: RBAC is not consulted', async () => {
    const f = fakes();
    const ctx = createOwnerContext(
      f.options({
        loadKubeConfig: () => {
          throw new Error('no current cluster');
        },
        now: () => 0,
      }),
    );
    assert.equal(await ctx.gather(INPUT), undefined);
    assert.equal(ctx.ready(), true);
    // Later reviews need no promise.
    assert.equal(ctx.gather(INPUT), undefined);
    assert.equal(f.state.reviews, 0);
  });

  test('a cluster whose RBAC cannot be set up: every asked owner unknown, grants not known', async () => {
    const f = fakes();
    const ctx = createOwnerContext(
      f.options({
        createIndex: () => {
          throw new Error('forbidden');
        },
        now: () => 0,
      }),
    );
    const facts = await ctx.gather(INPUT);
    assert.deepEqual(facts, { granted: new Set(), access: { 'team/storage': 'unknown' }, grantsKnown: false });
    assert.equal(ctx.ready(), true);
    const again = ctx.gather(INPUT);
    assert.ok(!(again instanceof Promise));
    assert.equal(f.state.reviews, 0);
  });

  test('stopped during set-up: what was created is stopped, not kept', async () => {
    const f = fakes();
    const ctx = createOwnerContext(f.options());
    ctx.stop();
    await setImmediate();
    await setImmediate();
    assert.deepEqual([f.state.indexStopped, f.state.reviewerClosed], [true, true]);
  });
});
