// The HTTP contract of /validate and /mutate, probes and metrics, driven in process with supertest.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import request from 'supertest';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { createLogger, silentLogger } from '../../src/infrastructure/log.js';
import { createApp, type AppDeps } from '../../src/transports/server/app.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import type { ParentFact } from '../../src/core/types.js';
import { CHILD_USERS, launcherPod, VM_KEY, VM_POLICY, VM_UID } from '../fixtures/children.js';
import { admissionReview, ETCD, machine, USERS } from '../fixtures/openshift.js';

/** What a fault answers: a metav1.Status, which the API server quotes in the error it returns, plus the request's uid. */
const FAULT_STATUS = (uid: string, fault: string): Record<string, unknown> => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  reason: 'InternalError',
  code: 500,
  message: `hookkeeper could not evaluate request ${uid}: ${fault}`,
  uid,
});

function app(overrides: Partial<AppDeps> = {}) {
  const metrics = createMetrics();
  return {
    metrics,
    listener: createApp({
      policy: () => DEFAULT_POLICY,
      logger: silentLogger(),
      metrics,
      ready: () => true,
      ...overrides,
    }),
  };
}

const removeEtcdHook = admissionReview({
  uid: 'a1b2c3d4-0000-4000-8000-000000000001',
  operation: 'UPDATE',
  object: machine({ preDrain: [], resourceVersion: '48300' }),
  oldObject: machine({ preDrain: [ETCD] }),
  user: USERS.alice,
});

describe('POST /validate', () => {
  test('a denial is HTTP 200 with a 403 status inside, uid echoed', async () => {
    const res = await request(app().listener)
      .post('/validate?timeout=10s')
      .send(removeEtcdHook)
      .expect(200)
      .expect('content-type', 'application/json');
    assert.equal(res.body.apiVersion, 'admission.k8s.io/v1');
    assert.equal(res.body.kind, 'AdmissionReview');
    assert.equal(res.body.response.uid, 'a1b2c3d4-0000-4000-8000-000000000001');
    assert.equal(res.body.response.allowed, false);
    assert.equal(res.body.response.status.code, 403);
    assert.equal(res.body.response.status.reason, 'Forbidden');
    assert.match(
      res.body.response.status.message,
      /"alice" may not remove preDrain hook "EtcdQuorumOperator" owned by "clusteroperator\/etcd"/,
    );
    assert.equal(res.body.response.patch, undefined);
  });

  test('the owner is allowed; the audit annotation says the registry allowed it', async () => {
    const body = structuredClone(removeEtcdHook);
    (body['request'] as Record<string, unknown>)['userInfo'] = USERS.etcdOperator;
    const res = await request(app().listener).post('/validate').send(body).expect(200);
    assert.deepEqual(res.body.response, {
      uid: 'a1b2c3d4-0000-4000-8000-000000000001',
      allowed: true,
      auditAnnotations: {
        'hook-removal': JSON.stringify({
          stage: 'preDrain',
          hook: 'EtcdQuorumOperator',
          owner: 'clusteroperator/etcd',
          user: USERS.etcdOperator.username,
          action: 'removal',
          route: 'registry',
        }),
      },
    });
  });

  test('break-glass is allowed with a warning and an audit annotation', async () => {
    const body = structuredClone(removeEtcdHook);
    (body['request'] as Record<string, unknown>)['userInfo'] = USERS.admin;
    const res = await request(app().listener).post('/validate').send(body).expect(200);
    assert.equal(res.body.response.allowed, true);
    assert.deepEqual(res.body.response.warnings, [
      'break-glass: kube:admin may remove preDrain hook EtcdQuorumOperator of clusteroperator/etcd; audited',
    ]);
    assert.ok(res.body.response.auditAnnotations['break-glass-hook-removal']);
  });

  test('dry-run requests are judged exactly the same', async () => {
    const body = structuredClone(removeEtcdHook);
    (body['request'] as Record<string, unknown>)['dryRun'] = true;
    const res = await request(app().listener).post('/validate').send(body).expect(200);
    assert.equal(res.body.response.allowed, false);
  });

  test('a kind hookkeeper does not handle is allowed unchanged', async () => {
    const body = admissionReview({
      operation: 'CREATE',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'y' } },
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      resource: 'configmaps',
    });
    const res = await request(app().listener).post('/mutate').send(body).expect(200);
    assert.deepEqual(res.body.response, { uid: '0df28fbd-5f5f-11e8-bc74-36e6bb280816', allowed: true });
  });
});

describe('POST /mutate', () => {
  test('a control-plane Machine gets the etcd hook as a JSON Patch', async () => {
    const body = admissionReview({ operation: 'CREATE', object: machine({ role: 'master' }), user: USERS.machineApi });
    const res = await request(app().listener).post('/mutate?timeout=10s').send(body).expect(200);
    assert.equal(res.body.response.allowed, true);
    assert.equal(res.body.response.patchType, 'JSONPatch');
    assert.deepEqual(JSON.parse(Buffer.from(res.body.response.patch, 'base64').toString()), [
      { op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] },
    ]);
  });

  test('no patch for a worker', async () => {
    const body = admissionReview({ operation: 'CREATE', object: machine({ role: 'worker' }) });
    const res = await request(app().listener).post('/mutate').send(body).expect(200);
    assert.deepEqual(Object.keys(res.body.response).sort(), ['allowed', 'uid']);
  });
});

describe('bad input', () => {
  test('not JSON -> 400 saying so', async () => {
    const res = await request(app().listener)
      .post('/validate')
      .set('content-type', 'application/json')
      .send('{"apiVersion": ')
      .expect(400);
    assert.match(res.body.error, /^request body is not JSON: /);
  });

  test('wrong envelope -> 400 listing every problem, with the uid when readable', async () => {
    const body = { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'u-9' } };
    const res = await request(app().listener).post('/validate').send(body).expect(400);
    assert.equal(res.body.uid, 'u-9');
    assert.deepEqual(res.body.problems, [
      'apiVersion must be "admission.k8s.io/v1"',
      "request must have required property 'kind'",
      "request must have required property 'operation'",
      "request must have required property 'userInfo'",
    ]);
  });

  test('unknown operation -> 400', async () => {
    const body = structuredClone(removeEtcdHook);
    (body['request'] as Record<string, unknown>)['operation'] = 'PATCH';
    const res = await request(app().listener).post('/validate').send(body).expect(400);
    assert.deepEqual(res.body.problems, ['request.operation must be one of CREATE, UPDATE, DELETE, CONNECT']);
  });

  test('a body over the limit -> 413', async () => {
    const { listener, metrics } = app({ bodyLimit: 1024 });
    const res = await request(listener)
      .post('/validate')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(4096) }))
      .expect(413);
    assert.match(res.body.error, /exceeds the 1024-byte limit/);
    assert.match(await metrics.registry.metrics(), /hookkeeper_bad_requests_total\{reason="too_large"\} 1/);
  });

  test('the real limit is 7 MiB', async () => {
    const res = await request(app().listener)
      .post('/validate')
      .set('content-type', 'application/json')
      .send(`"${'x'.repeat(7 * 1024 * 1024)}"`)
      .expect(413);
    assert.match(res.body.error, /7340032-byte limit/);
  });

  test('wrong content type -> 415', async () => {
    await request(app().listener).post('/validate').set('content-type', 'text/plain').send('hello').expect(415);
  });

  test('GET on a webhook path -> 405', async () => {
    await request(app().listener).get('/validate').expect(405).expect('allow', 'POST');
  });

  test('unknown path -> 404 listing the routes', async () => {
    const res = await request(app().listener).post('/validate-machine').send({}).expect(404);
    assert.ok(res.body.routes.includes('POST /validate'));
  });

  test('a fault inside evaluation answers HTTP 500 with a Status naming uid and fault, logged at error with the stack', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: {
        write: (line: string) => {
          lines.push(line);
        },
      },
    });
    const { listener, metrics } = app({
      logger,
      policy: () => {
        throw new Error('policy unavailable');
      },
    });
    const res = await request(listener)
      .post('/validate')
      .send(removeEtcdHook)
      .expect(500)
      .expect('content-type', 'application/json');
    assert.deepEqual(res.body, FAULT_STATUS('a1b2c3d4-0000-4000-8000-000000000001', 'policy unavailable'));
    assert.match(
      await metrics.registry.metrics(),
      /hookkeeper_admission_requests_total\{webhook="validate",kind="other",operation="UPDATE",decision="error"\} 1/,
    );
    const logged = lines.map(
      (l) => JSON.parse(l) as { level: number; msg: string; uid?: string; err?: { stack?: string } },
    );
    const fault = logged.find((l) => l.msg === 'admission review failed');
    assert.equal(fault?.level, 50);
    assert.equal(fault.uid, 'a1b2c3d4-0000-4000-8000-000000000001');
    assert.match(fault.err?.stack ?? '', /^Error: policy unavailable\n\s+at /);
  });

  test('a patch too large to answer with is a fault: HTTP 500, so failurePolicy applies, not an allow-false review', async () => {
    // 400 default hooks with long names: the add of the whole list is well over the 16 KiB a patch may take.
    const rule = DEFAULT_POLICY.defaultHooks[0]!;
    const defaultHooks = Array.from({ length: 400 }, (_, i) => ({
      ...rule,
      name: `d${i}`,
      hook: { name: `Hook${i}${'x'.repeat(40)}`, owner: rule.hook.owner },
    }));
    const { listener, metrics } = app({ policy: () => ({ ...DEFAULT_POLICY, defaultHooks }) });
    const create = admissionReview({
      uid: 'uid-big-patch',
      operation: 'CREATE',
      object: machine({ role: 'master' }),
      user: USERS.machineApi,
    });
    const res = await request(listener).post('/mutate').send(create).expect(500);
    assert.equal(res.body.uid, 'uid-big-patch');
    assert.match(
      res.body.message,
      /^hookkeeper could not evaluate request uid-big-patch: hookkeeper's patch of \d+ bytes exceeds the 16384-byte limit/,
    );
    assert.match(
      await metrics.registry.metrics(),
      /hookkeeper_admission_requests_total\{webhook="mutate",kind="Machine",operation="CREATE",decision="error"\} 1/,
    );
  });

  test('a fault in the handler outside a review is answered HTTP 500 as well, and counted', async () => {
    // The fault is logged through the request's child logger; a broken one leaves only the handler's own catch.
    const logger = silentLogger();
    logger.child = () => {
      throw new Error('logger broken');
    };
    const { listener, metrics } = app({
      logger,
      policy: () => {
        throw new Error('policy unavailable');
      },
    });
    const res = await request(listener).post('/mutate').send(removeEtcdHook).expect(500);
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'InternalError',
      code: 500,
      message: 'hookkeeper could not evaluate the request: logger broken',
    });
    assert.match(
      await metrics.registry.metrics(),
      /hookkeeper_admission_requests_total\{webhook="mutate",kind="other",operation="unknown",decision="error"\} 1/,
    );
  });
});

describe('probes and metrics', () => {
  test('healthz is always ok; readyz follows readiness', async () => {
    let ready = false;
    const { listener } = app({ ready: () => ready });
    await request(listener).get('/healthz').expect(200, 'ok');
    await request(listener).get('/readyz').expect(503);
    ready = true;
    await request(listener).get('/readyz').expect(200, 'ok');
  });

  test('metrics count decisions by kind, operation and decision, and violations by rule', async () => {
    const { listener } = app();
    await request(listener).post('/validate').send(removeEtcdHook).expect(200);
    const text = (await request(listener).get('/metrics').expect(200)).text;
    assert.match(
      text,
      /hookkeeper_admission_requests_total\{webhook="validate",kind="Machine",operation="UPDATE",decision="denied"\} 1/,
    );
    assert.match(text, /hookkeeper_violations_total\{rule="owner-only-removal",enforcement="deny"\} 1/);
    assert.match(text, /hookkeeper_admission_duration_seconds_count\{webhook="validate"\} 1/);
  });
});

test('the metrics kind label is bounded: kinds hookkeeper does not handle count as "other"', async () => {
  const { listener, metrics } = app();
  for (const kind of ['Gadget', 'Widget']) {
    const body = admissionReview({
      operation: 'CREATE',
      object: { apiVersion: 'example.com/v1', kind, metadata: { name: 'x', namespace: 'y' } },
      group: 'example.com',
      version: 'v1',
      kind,
      resource: 'things',
    });
    await request(listener).post('/validate').send(body).expect(200);
  }
  const text = await metrics.registry.metrics();
  assert.match(
    text,
    /hookkeeper_admission_requests_total\{webhook="validate",kind="other",operation="CREATE",decision="allowed"\} 2/,
  );
  assert.doesNotMatch(text, /kind="(Gadget|Widget)"/);
});

test('unverified hook removals are counted by owner, the label bounded to owners the policy or facts know', async () => {
  // The policy knows owner "team/storage" (a reserved hook) without protecting it (no registry entry, no grant);
  // an owner neither the policy nor the facts name counts as "other", whatever the request says.
  const policy = {
    ...DEFAULT_POLICY,
    reservedHooks: [...DEFAULT_POLICY.reservedHooks, { name: 'Migrate', owner: 'team/storage' }],
  };
  const { listener, metrics } = app({
    policy: () => policy,
    gatherContext: () =>
      Promise.resolve({ ownership: { granted: new Set(['team/granted']), access: {}, grantsKnown: true } }),
  });
  const removal = (uid: string, owners: string[]) =>
    admissionReview({
      uid,
      operation: 'UPDATE',
      object: machine({ preDrain: [ETCD], resourceVersion: '48300' }),
      oldObject: machine({ preDrain: [ETCD, ...owners.map((owner, i) => ({ name: `Hook${i}`, owner }))] }),
      user: USERS.alice,
    });
  await request(listener)
    .post('/validate')
    .send(removal('u-1', ['team/storage', 'bob-1', 'bob-2']))
    .expect(200);
  await request(listener)
    .post('/validate')
    .send(removal('u-2', ['team/storage', 'bob-3']))
    .expect(200);
  const text = await metrics.registry.metrics();
  assert.match(text, /hookkeeper_unverified_hook_removals_total\{owner="team\/storage"\} 2/);
  assert.match(text, /hookkeeper_unverified_hook_removals_total\{owner="other"\} 3/);
  assert.doesNotMatch(text, /owner="bob-/);
});

test('break-glass is counted by action and owner, owners bounded as unverified removals are', async () => {
  const { listener, metrics } = app({
    gatherContext: () =>
      Promise.resolve({ ownership: { granted: new Set(['team/granted']), access: {}, grantsKnown: true } }),
  });
  const granted = { name: 'Granted', owner: 'team/granted' };
  const send = (uid: string, object: ReturnType<typeof machine>, oldObject: ReturnType<typeof machine>) =>
    request(listener)
      .post('/validate')
      .send(admissionReview({ uid, operation: 'UPDATE', object, oldObject, user: USERS.admin }))
      .expect(200);
  // Removals of three owners' hooks.
  const removed = await send(
    'u-bg',
    machine({ preDrain: [], resourceVersion: '48300' }),
    machine({ preDrain: [ETCD, granted, { name: 'Stranger', owner: 'bob-1' }] }),
  );
  assert.equal(removed.body.response.allowed, true);
  // A hook added under a protected owner's name (squatting, allowed to break-glass).
  const added = await send('u-bg-add', machine({ preDrain: [granted] }), machine({ preDrain: [] }));
  assert.equal(added.body.response.allowed, true);
  // A deleting Machine's finalizers emptied while it carries the etcd hook: the hook's wait is bypassed.
  const deleting = { preDrain: [ETCD], deletionTimestamp: '2026-12-05T00:00:00Z' };
  const finished = await send('u-bg-fin', machine({ ...deleting, finalizers: [] }), machine({ ...deleting }));
  assert.equal(finished.body.response.allowed, true);
  const text = await metrics.registry.metrics();
  assert.deepEqual(
    text.split('\n').filter((l) => l.startsWith('hookkeeper_break_glass_total{')),
    [
      'hookkeeper_break_glass_total{action="hook-removal",owner="clusteroperator/etcd"} 1',
      'hookkeeper_break_glass_total{action="hook-removal",owner="team/granted"} 1',
      'hookkeeper_break_glass_total{action="hook-removal",owner="other"} 1',
      'hookkeeper_break_glass_total{action="hook-addition",owner="team/granted"} 1',
      'hookkeeper_break_glass_total{action="finalizer-removal",owner="clusteroperator/etcd"} 1',
    ],
  );
});

describe('context gathered by the transport', () => {
  const podCreate = admissionReview({
    uid: 'c0ffee00-0000-4000-8000-000000000007',
    operation: 'CREATE',
    object: launcherPod(),
    user: CHILD_USERS.virtController,
    group: '',
    version: 'v1',
    kind: 'Pod',
    resource: 'pods',
  });
  const found: ParentFact = { found: true, uid: VM_UID, deleting: false, namespaced: true };

  test('facts known from memory come as a value, not a promise, and decide the review', async () => {
    const storage = { name: 'storage.example.com/Migrate', owner: 'team/storage' };
    const body = admissionReview({
      uid: 'c0ffee00-0000-4000-8000-000000000008',
      operation: 'UPDATE',
      object: machine({ preDrain: [], resourceVersion: '48300' }),
      oldObject: machine({ preDrain: [storage] }),
      user: { username: 'bob', groups: [] },
    });
    const granted = (access: 'allowed' | 'denied') => ({
      ownership: { granted: new Set(['team/storage']), access: { 'team/storage': access }, grantsKnown: true },
    });
    for (const [access, allowed] of [
      ['denied', false],
      ['allowed', true],
    ] as const) {
      const { listener } = app({ gatherContext: () => granted(access) });
      const res = await request(listener).post('/validate').send(body).expect(200);
      assert.equal((res.body as { response: { allowed: boolean } }).response.allowed, allowed, access);
    }
  });

  test('parents looked up for the review decide it: the found VirtualMachine becomes an owner', async () => {
    const asked: string[] = [];
    const { listener } = app({
      policy: () => VM_POLICY,
      gatherContext: (input) => {
        asked.push(input.name ?? input.kind.kind);
        return Promise.resolve({ parents: { [VM_KEY]: found } });
      },
    });
    const res = await request(listener).post('/mutate').send(podCreate).expect(200);
    assert.equal(res.body.response.uid, 'c0ffee00-0000-4000-8000-000000000007');
    const patch = JSON.parse(Buffer.from(res.body.response.patch, 'base64').toString()) as Array<{
      op: string;
      path: string;
      value: unknown;
    }>;
    assert.ok(
      patch.some((op) => JSON.stringify(op.value).includes(VM_UID)),
      JSON.stringify(patch),
    );
    assert.deepEqual(asked, ['Pod']);
  });

  for (const [how, gatherContext] of [
    ['rejects', () => Promise.reject(new Error('watch cache broken'))],
    [
      'throws',
      () => {
        throw new Error('watch cache broken');
      },
    ],
  ] as const) {
    test(`a lookup that ${how} is never an allow: HTTP 500 naming the uid, counted as an error`, async () => {
      const { listener, metrics } = app({ policy: () => VM_POLICY, gatherContext });
      const res = await request(listener).post('/validate').send(podCreate).expect(500);
      assert.deepEqual(res.body, FAULT_STATUS('c0ffee00-0000-4000-8000-000000000007', 'watch cache broken'));
      assert.match(
        await metrics.registry.metrics(),
        /hookkeeper_admission_requests_total\{webhook="validate",kind="Pod",operation="CREATE",decision="error"\} 1/,
      );
    });
  }

  test('a review needing no parents is answered without waiting on anything', async () => {
    const { listener } = app({ gatherContext: () => undefined });
    const res = await request(listener).post('/validate').send(removeEtcdHook).expect(200);
    assert.equal(res.body.response.allowed, false);
  });
});

describe('decision lines at the default level', () => {
  /** The "admission decision" lines written at info, one review after another, each labelled by its decision. */
  async function decisionLines(
    send: (listener: ReturnType<typeof app>['listener']) => Promise<unknown>,
  ): Promise<Array<{ level: number; decision: string; uid: string }>> {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: {
        write: (line: string) => {
          lines.push(line);
        },
      },
    });
    await send(app({ logger }).listener);
    return lines
      .map((l) => JSON.parse(l) as { level: number; msg: string; decision: string; uid: string })
      .filter((l) => l.msg === 'admission decision')
      .map(({ level, decision, uid }) => ({ level, decision, uid }));
  }
  const as = (user: unknown, uid: string): Record<string, unknown> => {
    const body = structuredClone(removeEtcdHook);
    const req = body['request'] as Record<string, unknown>;
    req['userInfo'] = user;
    req['uid'] = uid;
    return body;
  };

  test('an allowed, unchanged review writes no line at info; it is still counted', async () => {
    let metricsText = '';
    const lines = await decisionLines(async (listener) => {
      // An update that removes no hook (a removal leaves an audit trace, so it is logged).
      await request(listener)
        .post('/validate')
        .send(
          admissionReview({
            uid: 'allowed-0',
            operation: 'UPDATE',
            object: machine({ preDrain: [ETCD], resourceVersion: '48300' }),
            oldObject: machine({ preDrain: [ETCD] }),
          }),
        )
        .expect(200);
      await request(listener)
        .post('/mutate')
        .send(admissionReview({ uid: 'allowed-1', operation: 'CREATE', object: machine({ role: 'worker' }) }))
        .expect(200);
      metricsText = (await request(listener).get('/metrics').expect(200)).text;
    });
    assert.deepEqual(lines, []);
    assert.match(
      metricsText,
      /hookkeeper_admission_requests_total\{webhook="validate",kind="Machine",operation="UPDATE",decision="allowed"\} 1/,
    );
    assert.match(
      metricsText,
      /hookkeeper_admission_requests_total\{webhook="mutate",kind="Machine",operation="CREATE",decision="allowed"\} 1/,
    );
  });

  test('denials, warnings and patches each write their line at info', async () => {
    const lines = await decisionLines(async (listener) => {
      await request(listener).post('/validate').send(as(USERS.alice, 'denied-0')).expect(200);
      await request(listener).post('/validate').send(as(USERS.admin, 'warned-0')).expect(200);
      await request(listener)
        .post('/mutate')
        .send(
          admissionReview({
            uid: 'patched-0',
            operation: 'CREATE',
            object: machine({ role: 'master' }),
            user: USERS.machineApi,
          }),
        )
        .expect(200);
    });
    assert.deepEqual(lines, [
      { level: 30, decision: 'denied', uid: 'denied-0' },
      { level: 30, decision: 'allowed', uid: 'warned-0' },
      { level: 30, decision: 'patched', uid: 'patched-0' },
    ]);
  });
});
