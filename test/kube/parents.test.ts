// Parent lookups: cache first, GET on a miss, and one time budget that always holds, with a fake API.
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../src/core/types.js';
import type { ParentRequest } from '../../src/core/children.js';
import {
  collectionPath,
  objectPath,
  type ApiGet,
  type ApiResponse,
} from '../../src/infrastructure/kube/api-requests.js';
import type { CacheFactory } from '../../src/infrastructure/kube/parent-cache.js';
import { createParentLookup } from '../../src/infrastructure/kube/parents.js';
import { silentLogger } from '../../src/infrastructure/log.js';

const VM: ParentRequest = {
  key: 'kubevirt.io/v1/VirtualMachine/vms/testvm',
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachine',
  resource: 'virtualmachines',
  namespaced: true,
  namespace: 'vms',
  name: 'testvm',
};
const PG: ParentRequest = {
  key: 'postgres-operator.crunchydata.com/v1beta1/PostgresCluster/db/hippo',
  apiVersion: 'postgres-operator.crunchydata.com/v1beta1',
  kind: 'PostgresCluster',
  resource: 'postgresclusters',
  namespaced: true,
  namespace: 'db',
  name: 'hippo',
};

function vmObject(deletionTimestamp?: string): Record<string, unknown> {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: {
      name: 'testvm',
      namespace: 'vms',
      uid: 'vm-uid',
      resourceVersion: '5521',
      ...(deletionTimestamp ? { deletionTimestamp } : {}),
    },
    spec: { runStrategy: 'Always' },
  };
}

/** A fake GET: answers from a table of paths, after `delayMs`; with ignoreSignal it never gives up early. */
function fakeGet(
  answers: Record<string, ApiResponse | Error>,
  o: { delayMs?: number; ignoreSignal?: boolean } = {},
): ApiGet & { calls: string[]; aborted: string[] } {
  const calls: string[] = [];
  const aborted: string[] = [];
  const get = (path: string, signal: AbortSignal): Promise<ApiResponse> => {
    calls.push(path);
    signal.addEventListener('abort', () => aborted.push(path), { once: true });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const a = answers[path] ?? { status: 404, body: { kind: 'Status', message: 'not found' } };
        if (a instanceof Error) reject(a);
        else resolve(a);
      }, o.delayMs ?? 0);
      if (!o.ignoreSignal)
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(new Error('The operation was aborted'));
          },
          { once: true },
        );
    });
  };
  return Object.assign(get, { calls, aborted });
}

/** Runs `body` on mock timers (setTimeout: the budget's and the fake GETs'). */
async function onMockTimers(body: () => Promise<void>): Promise<void> {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    await body();
  } finally {
    mock.timers.reset();
  }
}

/** Lets promise callbacks run (mock timers fire inside tick()). */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A promise's outcome so far, without waiting for it. */
function watch<T>(p: Promise<T>): { value?: T; settled: boolean } {
  const state: { value?: T; settled: boolean } = { settled: false };
  void p.then((value) => Object.assign(state, { value, settled: true }));
  return state;
}

function lookupWith(get: ApiGet, budgetMs = 200, caches: CacheFactory | false = false) {
  return createParentLookup({ kubeConfig: new KubeConfig(), kinds: [], budgetMs, logger: silentLogger(), get, caches });
}

describe('API paths', () => {
  test('groups live under /apis, the core group under /api; names are escaped', () => {
    assert.equal(objectPath(VM), '/apis/kubevirt.io/v1/namespaces/vms/virtualmachines/testvm');
    assert.equal(
      objectPath({ ...VM, apiVersion: 'v1', kind: 'ConfigMap', resource: 'configmaps', name: 'a:b' }),
      '/api/v1/namespaces/vms/configmaps/a%3Ab',
    );
    assert.equal(
      objectPath({ ...VM, namespaced: false, namespace: '' }),
      '/apis/kubevirt.io/v1/virtualmachines/testvm',
    );
    assert.equal(collectionPath(VM), '/apis/kubevirt.io/v1/virtualmachines');
  });
});

describe('createParentLookup', () => {
  const VM_PATH = objectPath(VM);

  test('found: uid and deletion state from the object', async () => {
    const facts = await lookupWith(fakeGet({ [VM_PATH]: { status: 200, body: vmObject() } })).lookup([VM]);
    assert.deepEqual(facts, { [VM.key]: { found: true, uid: 'vm-uid', deleting: false, namespaced: true } });
    const deleting = await lookupWith(
      fakeGet({ [VM_PATH]: { status: 200, body: vmObject('2026-11-21T11:00:00Z') } }),
    ).lookup([VM]);
    assert.deepEqual(deleting[VM.key], { found: true, uid: 'vm-uid', deleting: true, namespaced: true });
  });

  test("missing: NotFound with the API server's message", async () => {
    const facts = await lookupWith(fakeGet({})).lookup([VM]);
    assert.deepEqual(facts[VM.key], {
      found: false,
      reason: 'NotFound',
      message: `GET ${VM_PATH}: HTTP 404: not found`,
    });
  });

  test('refused or failing: Error', async () => {
    const forbidden = {
      status: 403,
      body: {
        kind: 'Status',
        message:
          'virtualmachines.kubevirt.io "testvm" is forbidden: User "system:serviceaccount:hookkeeper:hookkeeper" cannot get resource "virtualmachines"',
      },
    };
    const facts = await lookupWith(fakeGet({ [VM_PATH]: forbidden })).lookup([VM]);
    assert.deepEqual(facts[VM.key], {
      found: false,
      reason: 'Error',
      message: `GET ${VM_PATH}: HTTP 403: ${forbidden.body.message}`,
    });
    const refused = await lookupWith(fakeGet({ [VM_PATH]: new Error('connect ECONNREFUSED 10.0.0.1:443') })).lookup([
      VM,
    ]);
    assert.deepEqual(refused[VM.key], {
      found: false,
      reason: 'Error',
      message: `GET ${VM_PATH}: connect ECONNREFUSED 10.0.0.1:443`,
    });
  });

  test('slow: Timeout at the budget, not before, and the GET is aborted', () =>
    onMockTimers(async () => {
      const get = fakeGet({ [VM_PATH]: { status: 200, body: vmObject() } }, { delayMs: 5_000 });
      const facts = watch(lookupWith(get, 100).lookup([VM]));
      mock.timers.tick(99);
      await flush();
      assert.equal(facts.settled, false);
      assert.deepEqual(get.aborted, []);
      mock.timers.tick(1);
      await flush();
      assert.deepEqual(facts.value?.[VM.key], { found: false, reason: 'Timeout', message: 'no answer within 100 ms' });
      assert.deepEqual(get.aborted, [VM_PATH]);
    }));

  test('a GET that ignores its signal still cannot hold the review past the budget', () =>
    onMockTimers(async () => {
      const get = fakeGet({ [VM_PATH]: { status: 200, body: vmObject() } }, { delayMs: 1_000, ignoreSignal: true });
      const facts = watch(lookupWith(get, 100).lookup([VM]));
      mock.timers.tick(100);
      await flush();
      assert.deepEqual(facts.value?.[VM.key], { found: false, reason: 'Timeout', message: 'no answer within 100 ms' });
    }));

  test('parents are looked up in parallel under one budget', () =>
    onMockTimers(async () => {
      const get = fakeGet(
        {
          [VM_PATH]: { status: 200, body: vmObject() },
          [objectPath(PG)]: { status: 200, body: { metadata: { uid: 'pg-uid' } } },
        },
        { delayMs: 80 },
      );
      const facts = watch(lookupWith(get, 150).lookup([VM, PG]));
      await flush();
      // Both asked for at once; one after the other, the second would end at 160 ms, past the budget.
      assert.deepEqual(get.calls, [VM_PATH, objectPath(PG)]);
      mock.timers.tick(80);
      await flush();
      assert.deepEqual(facts.value, {
        [VM.key]: { found: true, uid: 'vm-uid', deleting: false, namespaced: true },
        [PG.key]: { found: true, uid: 'pg-uid', deleting: false, namespaced: true },
      });
    }));

  test('a cache hit needs no GET; a miss falls back to GET', async () => {
    const cached = new Map<string, KubeObject>([['vms/testvm', vmObject()]]);
    const caches: CacheFactory = () => ({
      get: (name, ns) => cached.get(`${ns}/${name}`),
      synced: () => true,
      stop: () => undefined,
    });
    const get = fakeGet({ [objectPath(PG)]: { status: 200, body: { metadata: { uid: 'pg-uid' } } } });
    const lookup = lookupWith(get, 200, caches);
    const facts = await lookup.lookup([VM, PG]);
    assert.equal(facts[VM.key]?.found, true);
    assert.deepEqual(get.calls, [objectPath(PG)]);
    assert.equal(lookup.synced(), true);
  });

  test('an object without a uid is an error, not a parent', async () => {
    const facts = await lookupWith(
      fakeGet({ [VM_PATH]: { status: 200, body: { metadata: { name: 'testvm' } } } }),
    ).lookup([VM]);
    assert.deepEqual(facts[VM.key], {
      found: false,
      reason: 'Error',
      message: 'VirtualMachine testvm has no metadata.uid',
    });
  });

  test('no requests: no work', async () => {
    const get = fakeGet({});
    assert.deepEqual(await lookupWith(get).lookup([]), {});
    assert.deepEqual(get.calls, []);
  });
});
