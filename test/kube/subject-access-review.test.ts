// The SubjectAccessReview client against an in-process fake API server: the review it posts, the cache (positive,
// negative, expiry, size bound), the budget (a server that never answers), and the outage rule (anything but the
// authorizer's own answer is 'unknown', and is never cached).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, mock, test } from 'node:test';
import { WILDCARD_PROBE_OWNER } from '../../src/core/ownership.js';
import { createAccessReviewer, SAR_PATH } from '../../src/infrastructure/kube/subject-access-review.js';
import type { ApiPost, ClusterAccess } from '../../src/infrastructure/kube/api-requests.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { eventually } from '../helpers/wait.js';

interface Posted {
  path: string;
  method: string;
  auth: string;
  body: {
    spec: {
      user: string;
      groups: string[];
      uid?: string;
      extra?: Record<string, string[]>;
      resourceAttributes: Record<string, string>;
    };
  };
}

const bob = { user: 'bob', groups: ['system:authenticated'] };
// Where the budget is not what a test is about: answers over the loopback must not race a busy machine's clock.
const UNHURRIED_MS = 30_000;
const SCOPES = 'scopes.authorization.openshift.io';

/** Lets promise callbacks run (mock timers fire inside tick()). */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A promise's outcome so far, without waiting for it. */
function watch<T>(p: Promise<T>): { value?: T; settled: boolean } {
  const state: { value?: T; settled: boolean } = { settled: false };
  void p.then((value) => Object.assign(state, { value, settled: true }));
  return state;
}

describe('SubjectAccessReview client against a fake API server', () => {
  let server: Server;
  let access: ClusterAccess;
  let posted: Posted[] = [];
  const hung: IncomingMessage[] = [];

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let text = '';
      req.setEncoding('utf8').on('data', (c: string) => (text += c));
      req.on('end', () => {
        const body = JSON.parse(text) as Posted['body'];
        // The wildcard probe follows every allowed answer: its own tests are in subject-access-review-probe.test.ts.
        if (body.spec.resourceAttributes['name'] === WILDCARD_PROBE_OWNER) {
          res.setHeader('content-type', 'application/json');
          res.writeHead(201).end(JSON.stringify({ ...body, status: { allowed: false } }));
          return;
        }
        posted.push({ path: req.url ?? '', method: req.method ?? '', auth: req.headers.authorization ?? '', body });
        const attrs = body.spec.resourceAttributes;
        const name = attrs['name'] ?? '';
        res.setHeader('content-type', 'application/json');
        if (name.startsWith('hang/')) {
          hung.push(req);
          return;
        }
        if (name.startsWith('fail/')) {
          res.writeHead(500).end(JSON.stringify({ kind: 'Status', message: 'etcdserver: request timed out' }));
          return;
        }
        if (name.startsWith('forbidden/')) {
          res.writeHead(403).end(JSON.stringify({ kind: 'Status', message: 'cannot create subjectaccessreviews' }));
          return;
        }
        if (name.startsWith('garbled/')) {
          res.writeHead(201).end('{"status": {"allowed": "yes"}}');
          return;
        }
        // An authorizer in front of RBAC that refuses hook owners to scoped tokens (OpenShift's scopes live in extra).
        const scoped = SCOPES in (body.spec.extra ?? {});
        const allowed =
          !scoped &&
          body.spec.user === 'bob' &&
          name === 'team/storage' &&
          attrs['verb'] === 'remove' &&
          attrs['group'] === 'hookkeeper.io' &&
          attrs['resource'] === 'hookowners';
        res.writeHead(201).end(JSON.stringify({ ...body, status: { allowed } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    access = {
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      requestOptions: () => Promise.resolve({ headers: { Authorization: 'Bearer sa-token' } }),
      proxied: false,
      compress: false,
    };
  });

  beforeEach(() => {
    posted = [];
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test('posts one review per owner with the requester, the owner as the name and the namespace', async () => {
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: UNHURRIED_MS });
    try {
      const answers = await reviewer.review(
        { user: 'bob', groups: ['system:authenticated', 'dev'], uid: 'u-1', extra: { scopes: ['a'] } },
        ['team/storage', 'team/other', 'team/storage'],
        'ns1',
      );
      assert.deepEqual(answers, { 'team/storage': 'allowed', 'team/other': 'denied' });
      assert.equal(posted.length, 2);
      const first = posted.find((p) => p.body.spec.resourceAttributes['name'] === 'team/storage');
      assert.ok(first);
      assert.equal(first.path, SAR_PATH);
      assert.equal(first.method, 'POST');
      assert.equal(first.auth, 'Bearer sa-token');
      assert.deepEqual(first.body.spec, {
        user: 'bob',
        groups: ['system:authenticated', 'dev'],
        uid: 'u-1',
        extra: { scopes: ['a'] },
        resourceAttributes: {
          group: 'hookkeeper.io',
          resource: 'hookowners',
          verb: 'remove',
          name: 'team/storage',
          namespace: 'ns1',
        },
      });
    } finally {
      reviewer.close();
    }
  });

  test('a cluster-scoped object (no namespace) sends no namespace; the empty owner sends nothing and is denied', async () => {
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: UNHURRIED_MS });
    try {
      assert.deepEqual(await reviewer.review(bob, ['team/storage', ''], undefined), {
        'team/storage': 'allowed',
        '': 'denied',
      });
      assert.equal(posted.length, 1);
      assert.equal('namespace' in (posted[0]?.body.spec.resourceAttributes ?? {}), false);
    } finally {
      reviewer.close();
    }
  });

  test('an owner named __proto__ is answered as an own key, not a prototype', async () => {
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: UNHURRIED_MS });
    try {
      const answers = await reviewer.review(bob, ['__proto__', 'team/storage'], 'ns1');
      assert.deepEqual(Object.keys(answers), ['__proto__', 'team/storage']);
      assert.equal(Object.getPrototypeOf(answers), Object.prototype);
      assert.equal(Object.getOwnPropertyDescriptor(answers, '__proto__')?.value, 'denied');
    } finally {
      reviewer.close();
    }
  });

  test('answers are cached, allowed and denied alike, per requester, owner and namespace, until they expire', async () => {
    let clock = 1_000_000;
    const reviewer = createAccessReviewer({
      access,
      logger: silentLogger(),
      budgetMs: UNHURRIED_MS,
      allowedTtlMs: 5_000,
      deniedTtlMs: 2_000,
      now: () => clock,
    });
    try {
      await reviewer.review(bob, ['team/storage', 'team/other'], 'ns1');
      assert.equal(posted.length, 2);
      // Same question, other group order: from the cache.
      await reviewer.review({ user: 'bob', groups: ['system:authenticated'] }, ['team/other', 'team/storage'], 'ns1');
      assert.equal(posted.length, 2);
      // Another namespace, another user, another uid: new questions.
      await reviewer.review(bob, ['team/storage'], 'ns2');
      await reviewer.review({ user: 'alice', groups: ['system:authenticated'] }, ['team/storage'], 'ns1');
      await reviewer.review({ ...bob, uid: 'other' }, ['team/storage'], 'ns1');
      assert.equal(posted.length, 5);
      clock += 2_001; // the denial has expired, the allow has not
      posted = [];
      assert.deepEqual(await reviewer.review(bob, ['team/storage', 'team/other'], 'ns1'), {
        'team/storage': 'allowed',
        'team/other': 'denied',
      });
      assert.deepEqual(
        posted.map((p) => p.body.spec.resourceAttributes['name']),
        ['team/other'],
      );
      clock += 3_000; // now the allow has expired too
      await reviewer.review(bob, ['team/storage'], 'ns1');
      assert.equal(posted.length, 2);
    } finally {
      reviewer.close();
    }
  });

  test('the cache keys on uid and extra too: an unscoped answer is never reused for a scoped requester', async () => {
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: UNHURRIED_MS });
    try {
      const scoped = (...scopes: string[]) => ({ ...bob, extra: { [SCOPES]: scopes } });
      assert.deepEqual(await reviewer.review(bob, ['team/storage'], 'ns1'), { 'team/storage': 'allowed' });
      assert.deepEqual(await reviewer.review(scoped('user:info'), ['team/storage'], 'ns1'), {
        'team/storage': 'denied',
      });
      assert.equal(posted.length, 2);
      // Other scopes, another extra key, another uid: other questions. The same scoped requester again: the cache.
      await reviewer.review(scoped('user:check-access'), ['team/storage'], 'ns1');
      await reviewer.review({ ...bob, extra: { 'example.com/other': ['x'] } }, ['team/storage'], 'ns1');
      await reviewer.review({ ...scoped('user:info'), uid: 'u-2' }, ['team/storage'], 'ns1');
      assert.equal(posted.length, 5);
      assert.deepEqual(await reviewer.review(scoped('user:info'), ['team/storage'], 'ns1'), {
        'team/storage': 'denied',
      });
      assert.equal(posted.length, 5);
    } finally {
      reviewer.close();
    }
  });

  test('the cache holds at most maxEntries answers, dropping the least recently used', async () => {
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: UNHURRIED_MS, maxEntries: 2 });
    try {
      await reviewer.review(bob, ['a/1'], 'ns');
      await reviewer.review(bob, ['a/2'], 'ns');
      await reviewer.review(bob, ['a/1'], 'ns'); // a hit: a/1 is now the most recent
      await reviewer.review(bob, ['a/3'], 'ns'); // evicts a/2
      assert.equal(reviewer.size(), 2);
      posted = [];
      await reviewer.review(bob, ['a/1', 'a/3'], 'ns');
      assert.equal(posted.length, 0);
      await reviewer.review(bob, ['a/2'], 'ns');
      assert.equal(posted.length, 1);
    } finally {
      reviewer.close();
    }
  });

  test('concurrent reviews of the same question share one request', async () => {
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: UNHURRIED_MS });
    try {
      const answers = await Promise.all([1, 2, 3].map(() => reviewer.review(bob, ['team/storage'], 'ns1')));
      assert.deepEqual(answers, Array(3).fill({ 'team/storage': 'allowed' }));
      assert.equal(posted.length, 1);
    } finally {
      reviewer.close();
    }
  });

  test('outage rule: errors, refusals and unreadable answers are unknown, and are asked again next time', async () => {
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: UNHURRIED_MS });
    try {
      const owners = ['fail/a', 'forbidden/b', 'garbled/c'];
      assert.deepEqual(await reviewer.review(bob, [...owners, 'team/storage'], 'ns1'), {
        'fail/a': 'unknown',
        'forbidden/b': 'unknown',
        'garbled/c': 'unknown',
        'team/storage': 'allowed',
      });
      // team/storage's answer and its probe's.
      assert.equal(reviewer.size(), 2);
      await reviewer.review(bob, owners, 'ns1');
      assert.equal(posted.length, 4 + 3);
    } finally {
      reviewer.close();
    }
  });

  test('an API server that is not there: unknown', async () => {
    const reviewer = createAccessReviewer({
      access: { ...access, server: 'http://127.0.0.1:1' },
      logger: silentLogger(),
    });
    try {
      assert.deepEqual(await reviewer.review(bob, ['team/storage'], 'ns1'), { 'team/storage': 'unknown' });
    } finally {
      reviewer.close();
    }
  });

  test('budget: a server that never answers costs one budget for all owners, then unknown; the request is dropped', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const reviewer = createAccessReviewer({ access, logger: silentLogger(), budgetMs: 300 });
    try {
      hung.length = 0;
      const answers = watch(reviewer.review(bob, ['hang/a', 'hang/b', 'team/storage'], 'ns1'));
      // The server holds two questions and has answered the third and, as it was allowed, the wildcard probe (each
      // cached once the client has read it).
      await eventually(() => hung.length === 2 && reviewer.size() === 2, 'the questions to arrive');
      mock.timers.tick(299);
      await flush();
      assert.equal(answers.settled, false);
      mock.timers.tick(1);
      await flush();
      assert.deepEqual(answers.value, { 'hang/a': 'unknown', 'hang/b': 'unknown', 'team/storage': 'allowed' });
      // The client gave up on the requests, not only on waiting for them.
      await eventually(() => hung.every((r) => r.destroyed), 'the held requests to be dropped');
    } finally {
      reviewer.close();
      mock.timers.reset();
    }
  });

  test('budget: a transport that ignores its abort signal still cannot hold the review', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let calls = 0;
      const never: ApiPost = () => {
        calls++;
        return new Promise(() => undefined);
      };
      const reviewer = createAccessReviewer({ post: never, logger: silentLogger(), budgetMs: 200 });
      const first = watch(reviewer.review(bob, ['team/storage'], 'ns1'));
      mock.timers.tick(199);
      await flush();
      assert.equal(first.settled, false);
      mock.timers.tick(1);
      await flush();
      assert.deepEqual(first.value, { 'team/storage': 'unknown' });
      // The abandoned request is not left in flight for later reviews to join: the next one asks again.
      void reviewer.review(bob, ['team/storage'], 'ns1');
      assert.equal(calls, 2);
    } finally {
      mock.timers.reset();
    }
  });
});
