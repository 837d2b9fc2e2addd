// The API server accepts JSON nested 10,000 levels deep (in providerSpec, say), so every walk hookkeeper makes
// over a request's objects must too: a deleting Machine with such a providerSpec still loses its last finalizer.
// Bodies are built as text: JSON.stringify itself cannot write them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import request from 'supertest';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { deepEqual } from '../../src/core/finalizers.js';
import { cloneJson } from '../../src/core/patch.js';
import { quote } from '../../src/core/guards.js';
import { createLogger, silentLogger } from '../../src/infrastructure/log.js';
import { createApp } from '../../src/transports/server/app.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import { admissionReview, ETCD, machine, USERS } from '../fixtures/openshift.js';
import { cli } from '../helpers/cli.js';

const DEPTH = 10_000;
const DEEP_TEXT = `${'{"a":['.repeat(DEPTH / 2)}1${']}'.repeat(DEPTH / 2)}`;
const deepValue = (): unknown => JSON.parse(DEEP_TEXT) as unknown;
const MARK = '"__deep__"';

/** `body` as JSON, with every "__deep__" string replaced by the 10,000-level value. */
const withDeep = (body: unknown): string => JSON.stringify(body).split(MARK).join(DEEP_TEXT);

function deepMachine(o: Parameters<typeof machine>[0] = {}): Record<string, unknown> {
  const m = machine(o);
  ((m['spec'] as Record<string, unknown>)['providerSpec'] as Record<string, unknown>)['value'] = '__deep__';
  return m;
}

const lastFinalizerRemoved = admissionReview({
  operation: 'UPDATE',
  object: deepMachine({ preDrain: [ETCD], deletionTimestamp: '2026-11-24T10:00:00Z', finalizers: [] }),
  oldObject: deepMachine({
    preDrain: [ETCD],
    deletionTimestamp: '2026-11-24T10:00:00Z',
    finalizers: ['machine.machine.openshift.io'],
  }),
  user: USERS.machineApi,
});

const app = (level = 'silent') =>
  createApp({
    policy: () => DEFAULT_POLICY,
    logger: level === 'silent' ? silentLogger() : createLogger({ level, destination: { write: () => undefined } }),
    metrics: createMetrics(),
    ready: () => true,
  });

const post = (path: string, text: string, level?: string) =>
  request(app(level)).post(path).set('content-type', 'application/json').send(text).expect(200);

describe(`objects nested ${DEPTH} levels deep, through the whole server path`, () => {
  test('a deleting Machine loses its last finalizer', async () => {
    const res = await post('/validate', withDeep(lastFinalizerRemoved));
    assert.deepEqual(res.body.response, { uid: '0df28fbd-5f5f-11e8-bc74-36e6bb280816', allowed: true });
  });

  test('... also with every body logged at debug level', async () => {
    const res = await post('/validate', withDeep(lastFinalizerRemoved), 'debug');
    assert.equal(res.body.response.allowed, true);
  });

  test('a deep value changed alongside the finalizer is still seen as a change', async () => {
    const body = structuredClone(lastFinalizerRemoved);
    const req = body['request'] as Record<string, Record<string, Record<string, unknown>>>;
    // The stored object lacks the etcd hook: the new one adds it to a deleting Machine.
    (req['oldObject']!['spec'] as Record<string, unknown>)['lifecycleHooks'] = {};
    const res = await post('/validate', withDeep(body));
    assert.equal(res.body.response.allowed, false);
    assert.match(res.body.response.status.message, /pre-drain hooks are immutable/);
  });

  test('creating a control-plane Machine: the default hook is patched in', async () => {
    const res = await post(
      '/mutate',
      withDeep(admissionReview({ operation: 'CREATE', object: deepMachine({ preDrain: [] }), user: USERS.machineApi })),
    );
    assert.equal(res.body.response.allowed, true);
    assert.deepEqual(JSON.parse(Buffer.from(res.body.response.patch, 'base64').toString()), [
      { op: 'add', path: '/spec/lifecycleHooks/preDrain/0', value: { name: ETCD.name, owner: ETCD.owner } },
    ]);
  });

  test('deep values where rules read and write: hook entries, owner references, annotations', async () => {
    const object = machine({
      preDrain: [{ name: 'Team', owner: 'team/x' }],
      ownerReferences: [
        { apiVersion: 'v1', kind: '__deep__', name: 'a', uid: 'u', controller: true },
        { apiVersion: 'v1', kind: 'B', name: 'b', uid: 'v', controller: true },
      ],
    });
    const hooksOf = (object['spec'] as Record<string, Record<string, Array<Record<string, unknown>>>>)[
      'lifecycleHooks'
    ]!;
    hooksOf['preDrain']![0]!['extra'] = '__deep__';
    hooksOf['preDrain']!.push({ name: '__deep__', owner: '__deep__' });
    const body = withDeep(admissionReview({ operation: 'CREATE', object, user: USERS.machineApi }));
    for (const path of ['/validate', '/mutate']) {
      const res = await post(path, body);
      assert.equal(typeof res.body.response.allowed, 'boolean', path);
      assert.notEqual(res.body.response.status?.code, 500, JSON.stringify(res.body.response.status));
    }
    // The stage holds a hook whose name is not a string: mutation leaves it to validation rather than drop it.
    assert.equal((await post('/mutate', body)).body.response.patch, undefined);
    const v = await post('/validate', body);
    assert.match(v.body.response.status.message, /Only one reference can have Controller set to true/);
  });

  test('hookkeeper review answers it', async () => {
    const r = await cli(['review', '--validate'], { stdin: withDeep(lastFinalizerRemoved) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).response.allowed, true);
  });
});

describe('the walks themselves', () => {
  test('deepEqual compares 10,000 levels, and finds the one difference at the bottom', () => {
    assert.equal(deepEqual(deepValue(), deepValue()), true);
    assert.equal(deepEqual(deepValue(), JSON.parse(DEEP_TEXT.replace('1', '2'))), false);
  });

  test('cloneJson copies 10,000 levels', () => {
    const copy = cloneJson(deepValue());
    assert.equal(deepEqual(copy, deepValue()), true);
  });

  test('quote names a value too deep to print without printing it', () => {
    assert.match(quote(deepValue()), /^\(object nested more than \d+ levels\)$/);
    assert.equal(quote({ a: [1] }), '{"a":[1]}');
  });
});
