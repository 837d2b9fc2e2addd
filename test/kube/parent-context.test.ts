// What serve gathers before a review: nothing without child rules, facts for child CREATEs, a clear Error fact
// when the API cannot be reached, and readiness held only while the first policy's caches list. The lookup is
// set up asynchronously (client-node is imported on first need): every review waits for it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { ParentRequest } from '../../src/core/children.js';
import type { ParentKindRef } from '../../src/core/policy.js';
import { AppError } from '../../src/errors.js';
import { createParentContext } from '../../src/infrastructure/kube/parent-context.js';
import type { ParentLookup, ParentLookupOptions } from '../../src/infrastructure/kube/parents.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { childInput, DB_POLICY, launcherPod, VM_KEY, VM_POLICY, VM_UID } from '../fixtures/children.js';

function fakeLookups() {
  const created: ParentLookupOptions[] = [];
  const asked: ParentRequest[][] = [];
  const watched: ParentKindRef[][] = [];
  let synced = false;
  const createLookup = (options: ParentLookupOptions): ParentLookup => {
    created.push(options);
    return {
      lookup: async (requests) => {
        asked.push([...requests]);
        return Object.fromEntries(
          requests.map((r) => [r.key, { found: true, uid: VM_UID, deleting: false, namespaced: true }]),
        );
      },
      watch: (kinds) => {
        watched.push([...kinds]);
      },
      synced: () => synced,
      stop: () => undefined,
    };
  };
  return {
    created,
    asked,
    watched,
    createLookup,
    sync: () => {
      synced = true;
    },
  };
}

describe('createParentContext', () => {
  test('a policy without child rules never loads credentials nor looks anything up', async () => {
    const fake = fakeLookups();
    const ctx = createParentContext({
      loadKubeConfig: () => {
        throw new Error('must not be called');
      },
      logger: silentLogger(),
      createLookup: fake.createLookup,
    });
    ctx.setPolicy(DEFAULT_POLICY);
    assert.equal(await ctx.gather(childInput({ object: launcherPod() })), undefined);
    assert.equal(fake.created.length, 0);
    assert.equal(ctx.ready(), true);
  });

  test('child CREATEs get their parents; other requests pay nothing', async () => {
    const fake = fakeLookups();
    const ctx = createParentContext({
      loadKubeConfig: () => new KubeConfig(),
      budgetMs: 700,
      logger: silentLogger(),
      createLookup: fake.createLookup,
    });
    ctx.setPolicy(VM_POLICY);
    assert.deepEqual(await ctx.gather(childInput({ object: launcherPod() })), {
      parents: { [VM_KEY]: { found: true, uid: VM_UID, deleting: false, namespaced: true } },
    });
    assert.deepEqual(
      fake.created.map((o) => [o.budgetMs, o.kinds.map((k) => k.kind)]),
      [[700, ['VirtualMachine']]],
    );
    const pod = launcherPod({ stored: true, name: 'virt-launcher-testvm-x7k2p' });
    assert.equal(await ctx.gather(childInput({ operation: 'UPDATE', object: pod, oldObject: pod })), undefined);
    assert.equal(fake.asked.length, 1);
  });

  test('without credentials every parent is an Error fact naming why, and serving goes on', async () => {
    const fake = fakeLookups();
    const ctx = createParentContext({
      loadKubeConfig: () => {
        throw new AppError(
          'USAGE',
          "cannot load kubeconfig: ENOENT: no such file or directory, open '/root/.kube/config'",
        );
      },
      logger: silentLogger(),
      createLookup: fake.createLookup,
    });
    ctx.setPolicy(VM_POLICY);
    assert.deepEqual(await ctx.gather(childInput({ object: launcherPod() })), {
      parents: {
        [VM_KEY]: {
          found: false,
          reason: 'Error',
          message:
            "cannot reach the Kubernetes API: cannot load kubeconfig: ENOENT: no such file or directory, open '/root/.kube/config'",
        },
      },
    });
    assert.equal(ctx.ready(), true);
  });

  test('a reloaded policy naming new parent kinds starts their caches, even while the first set-up is under way', async () => {
    const fake = fakeLookups();
    const ctx = createParentContext({
      loadKubeConfig: () => new KubeConfig(),
      logger: silentLogger(),
      createLookup: fake.createLookup,
    });
    ctx.setPolicy(VM_POLICY);
    ctx.setPolicy(DB_POLICY);
    await setImmediate(); // the set-up has no I/O here: it settles within this turn
    assert.equal(fake.created.length, 1);
    assert.deepEqual(
      fake.watched.map((ks) => ks.map((k) => k.kind)),
      [['PostgresCluster']],
    );
  });

  test('readiness waits for the first caches to be set up and to list, for at most the grace period', async () => {
    const fake = fakeLookups();
    let now = 0;
    const ctx = createParentContext({
      loadKubeConfig: () => new KubeConfig(),
      logger: silentLogger(),
      createLookup: fake.createLookup,
      syncGraceMs: 10_000,
      now: () => now,
    });
    ctx.setPolicy(VM_POLICY);
    assert.equal(ctx.ready(), false, 'set-up under way');
    await ctx.gather(childInput({ object: launcherPod() }));
    assert.equal(fake.created.length, 1);
    assert.equal(ctx.ready(), false, 'set up, not listed yet');
    fake.sync();
    assert.equal(ctx.ready(), true);

    const slow = fakeLookups();
    const late = createParentContext({
      loadKubeConfig: () => new KubeConfig(),
      logger: silentLogger(),
      createLookup: slow.createLookup,
      syncGraceMs: 10_000,
      now: () => now,
    });
    late.setPolicy(VM_POLICY);
    await late.gather(childInput({ object: launcherPod() }));
    now = 9_999;
    assert.equal(late.ready(), false);
    now = 10_000;
    assert.equal(late.ready(), true);
  });

  test('child rules arriving by reload never make a serving replica unready', async () => {
    const fake = fakeLookups();
    const ctx = createParentContext({
      loadKubeConfig: () => new KubeConfig(),
      logger: silentLogger(),
      createLookup: fake.createLookup,
      now: () => 0,
    });
    ctx.setPolicy(DEFAULT_POLICY);
    ctx.setPolicy(VM_POLICY);
    assert.equal(ctx.ready(), true);
    await ctx.gather(childInput({ object: launcherPod() }));
    assert.equal(fake.created.length, 1);
    assert.equal(ctx.ready(), true);
  });

  test('a lookup whose set-up finishes after stop is stopped at once', async () => {
    let stops = 0;
    const ctx = createParentContext({
      loadKubeConfig: async () => new KubeConfig(),
      logger: silentLogger(),
      createLookup: async (options) => ({
        ...fakeLookups().createLookup(options),
        stop: () => {
          stops++;
        },
      }),
    });
    ctx.setPolicy(VM_POLICY);
    ctx.stop();
    await ctx.gather(childInput({ object: launcherPod() }));
    assert.equal(stops, 1);
  });

  test('the default lookup is imported on first need and uses the loaded credentials', async () => {
    const ctx = createParentContext({
      loadKubeConfig: () => {
        throw new Error('no credentials here');
      },
      logger: silentLogger(),
    });
    ctx.setPolicy(VM_POLICY);
    assert.deepEqual(await ctx.gather(childInput({ object: launcherPod() })), {
      parents: {
        [VM_KEY]: {
          found: false,
          reason: 'Error',
          message: 'cannot reach the Kubernetes API: no credentials here',
        },
      },
    });
  });
});
