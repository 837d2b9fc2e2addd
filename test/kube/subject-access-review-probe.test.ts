// The wildcard probe of the SubjectAccessReview client: asked (about the reserved owner name) only when an owner came
// back allowed, cached like any answer, within the review's one budget and its owner cap, and under the outage rule:
// a probe that could not be asked leaves the allowed owners 'unknown', never allowed.
import assert from 'node:assert/strict';
import { afterEach, describe, mock, test } from 'node:test';
import { MAX_OWNERS_CHECKED, WILDCARD_PROBE_OWNER } from '../../src/core/ownership.js';
import { createAccessReviewer, sarBody } from '../../src/infrastructure/kube/subject-access-review.js';
import type { ApiPost, ApiResponse } from '../../src/infrastructure/kube/api-requests.js';
import { silentLogger } from '../../src/infrastructure/log.js';

interface Sar {
  spec: { user: string; resourceAttributes: { name: string; namespace?: string } };
}

/**
 * An authorizer in memory: root may remove every owner name (cluster-admin), bob only team/storage (a named
 * grant). `answer` may hold a name's reply back (a promise) or fail it; every question is recorded.
 */
function fakeApi(answer: (name: string) => Promise<ApiResponse> | undefined = () => undefined) {
  const asked: string[] = [];
  const post: ApiPost = (_path, body) => {
    const { spec } = body as Sar;
    const name = spec.resourceAttributes.name;
    asked.push(`${spec.user}:${name}`);
    const allowed = spec.user === 'root' || (spec.user === 'bob' && name === 'team/storage');
    return answer(name) ?? Promise.resolve({ status: 201, body: { ...(body as object), status: { allowed } } });
  };
  return { post, asked };
}

const root = { user: 'root', groups: ['system:authenticated'] };
const bob = { user: 'bob', groups: ['system:authenticated'] };
const alice = { user: 'alice', groups: ['system:authenticated'] };

describe('SubjectAccessReview client: the wildcard probe', () => {
  afterEach(() => mock.timers.reset());

  test('the probe is the reserved owner name, asked once an owner came back allowed and only then', async () => {
    const api = fakeApi();
    const reviewer = createAccessReviewer({ post: api.post, logger: silentLogger() });
    assert.deepEqual(await reviewer.review(alice, ['team/storage', 'clusteroperator/etcd'], 'ns1'), {
      'team/storage': 'denied',
      'clusteroperator/etcd': 'denied',
    });
    assert.deepEqual(api.asked, ['alice:team/storage', 'alice:clusteroperator/etcd']);
    api.asked.length = 0;
    // A grant naming the owner: the probe is denied, so the owner's answer stands.
    assert.deepEqual(await reviewer.review(bob, ['team/storage', 'clusteroperator/etcd'], 'ns1'), {
      'team/storage': 'allowed',
      'clusteroperator/etcd': 'denied',
    });
    assert.deepEqual(api.asked, ['bob:team/storage', 'bob:clusteroperator/etcd', `bob:${WILDCARD_PROBE_OWNER}`]);
    api.asked.length = 0;
    // Rights over every name: every allowed owner is wildcard.
    assert.deepEqual(await reviewer.review(root, ['team/storage', 'clusteroperator/etcd'], 'ns1'), {
      'team/storage': 'wildcard',
      'clusteroperator/etcd': 'wildcard',
    });
    assert.deepEqual(api.asked, ['root:team/storage', 'root:clusteroperator/etcd', `root:${WILDCARD_PROBE_OWNER}`]);
  });

  test("the probe's review is the owners' review with the reserved name, in the same namespace", () => {
    const body = sarBody(root, WILDCARD_PROBE_OWNER, 'ns1') as { spec: Sar['spec'] & Record<string, unknown> };
    assert.deepEqual(body.spec.resourceAttributes, {
      group: 'hookkeeper.io',
      resource: 'hookowners',
      verb: 'remove',
      name: WILDCARD_PROBE_OWNER,
      namespace: 'ns1',
    });
  });

  test("the probe's answer is cached like any other: per requester and namespace, until it expires", async () => {
    let clock = 1_000_000;
    const api = fakeApi();
    const reviewer = createAccessReviewer({
      post: api.post,
      logger: silentLogger(),
      allowedTtlMs: 5_000,
      deniedTtlMs: 2_000,
      now: () => clock,
    });
    await reviewer.review(root, ['team/a'], 'ns1');
    await reviewer.review(root, ['team/b'], 'ns1');
    await reviewer.review(bob, ['team/storage'], 'ns1');
    await reviewer.review(bob, ['team/storage'], 'ns1');
    const probes = () => api.asked.filter((q) => q.endsWith(WILDCARD_PROBE_OWNER));
    assert.deepEqual(probes(), [`root:${WILDCARD_PROBE_OWNER}`, `bob:${WILDCARD_PROBE_OWNER}`]);
    await reviewer.review(root, ['team/a'], 'ns2');
    assert.equal(probes().length, 3, 'another namespace is another question');
    clock += 2_001; // bob's denied probe has expired, root's allowed one has not
    await reviewer.review(root, ['team/a'], 'ns1');
    await reviewer.review(bob, ['team/storage'], 'ns1');
    assert.deepEqual(probes().slice(3), [`bob:${WILDCARD_PROBE_OWNER}`]);
  });

  test('an owner named like the probe shares its question: one request, and it is wildcard for root', async () => {
    const api = fakeApi();
    const reviewer = createAccessReviewer({ post: api.post, logger: silentLogger() });
    assert.deepEqual(await reviewer.review(root, [WILDCARD_PROBE_OWNER], 'ns1'), {
      [WILDCARD_PROBE_OWNER]: 'wildcard',
    });
    assert.deepEqual(api.asked, [`root:${WILDCARD_PROBE_OWNER}`]);
  });

  test('outage rule: a probe that could not be asked leaves the allowed owners unknown, and is asked again', async () => {
    let failing = true;
    const api = fakeApi((name) =>
      failing && name === WILDCARD_PROBE_OWNER
        ? Promise.resolve({ status: 500, body: { kind: 'Status', message: 'etcdserver: request timed out' } })
        : undefined,
    );
    const reviewer = createAccessReviewer({ post: api.post, logger: silentLogger() });
    assert.deepEqual(await reviewer.review(bob, ['team/storage', 'team/other'], 'ns1'), {
      'team/storage': 'unknown',
      'team/other': 'denied',
    });
    failing = false;
    assert.deepEqual(await reviewer.review(bob, ['team/storage'], 'ns1'), { 'team/storage': 'allowed' });
    assert.equal(api.asked.filter((q) => q.endsWith(WILDCARD_PROBE_OWNER)).length, 2);
  });

  test(`budget: at most ${MAX_OWNERS_CHECKED} owners are asked about, the rest unknown; the probe is one more`, async () => {
    const api = fakeApi();
    const reviewer = createAccessReviewer({ post: api.post, logger: silentLogger() });
    const owners = Array.from({ length: MAX_OWNERS_CHECKED + 3 }, (_, i) => `team/${i}`);
    const answers = await reviewer.review(root, owners, 'ns1');
    assert.equal(api.asked.length, MAX_OWNERS_CHECKED + 1);
    assert.deepEqual(
      owners.map((o) => answers[o]),
      owners.map((_, i) => (i < MAX_OWNERS_CHECKED ? 'wildcard' : 'unknown')),
    );
  });

  test('budget: the owners and the probe share one budget; a probe past it is unknown', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const held = new Map<string, (r: ApiResponse) => void>();
    const hold = (name: string): Promise<ApiResponse> => new Promise((resolve) => held.set(name, resolve));
    const api = fakeApi((name) => (name === 'team/slow' || name === WILDCARD_PROBE_OWNER ? hold(name) : undefined));
    const reviewer = createAccessReviewer({ post: api.post, logger: silentLogger(), budgetMs: 1_000 });
    const settle = () => new Promise((r) => setImmediate(r));
    let answers: Record<string, string> | undefined;
    void reviewer.review(root, ['team/slow'], 'ns1').then((a) => (answers = a));
    await settle();
    mock.timers.tick(900);
    held.get('team/slow')?.({ status: 201, body: { status: { allowed: true } } });
    await settle();
    // The probe went out 900 ms into the budget: 100 ms are left for it, not another full budget.
    assert.ok(held.has(WILDCARD_PROBE_OWNER));
    mock.timers.tick(99);
    await settle();
    assert.equal(answers, undefined);
    mock.timers.tick(1);
    await settle();
    assert.deepEqual(answers, { 'team/slow': 'unknown' });
  });

  test('budget: owners answered from the cache give the probe the whole budget', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let hang = false;
    let release: ((r: ApiResponse) => void) | undefined;
    const api = fakeApi((name) =>
      hang && name === WILDCARD_PROBE_OWNER ? new Promise((resolve) => (release = resolve)) : undefined,
    );
    let clock = 0;
    const reviewer = createAccessReviewer({
      post: api.post,
      logger: silentLogger(),
      budgetMs: 1_000,
      allowedTtlMs: 10_000,
      deniedTtlMs: 10,
      now: () => clock,
    });
    await reviewer.review(bob, ['team/storage'], 'ns1');
    clock += 11; // the denied probe expires; team/storage's allow is still cached
    hang = true;
    const settle = () => new Promise((r) => setImmediate(r));
    let answers: Record<string, string> | undefined;
    void reviewer.review(bob, ['team/storage'], 'ns1').then((a) => (answers = a));
    await settle();
    mock.timers.tick(999);
    await settle();
    assert.equal(answers, undefined);
    release?.({ status: 201, body: { status: { allowed: false } } });
    await settle();
    assert.deepEqual(answers, { 'team/storage': 'allowed' });
  });
});
