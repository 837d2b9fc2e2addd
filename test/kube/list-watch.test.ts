// The watch loop of list-watch.ts on a fake transport and fake timers: every branch driven by hand (list pages, events,
// bookmarks, a silent watch, 410 on the response and as an ERROR event, other errors, the backoff), no real time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ApiResponse, StreamHandlers } from '../../src/infrastructure/kube/api-requests.js';
import type { KubeObject } from '../../src/core/types.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import {
  INACTIVITY_MS,
  watchCollection,
  type Timers,
  type WatchedCollection,
} from '../../src/infrastructure/kube/list-watch.js';

const PATH = '/apis/rbac.authorization.k8s.io/v1/roles';
const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

const role = (name: string, rv: string, namespace = 'ns1'): KubeObject => ({
  metadata: { name, namespace, resourceVersion: rv },
});
const list = (items: KubeObject[], rv: string, next?: string): ApiResponse => ({
  status: 200,
  body: { kind: 'RoleList', metadata: { resourceVersion: rv, ...(next ? { continue: next } : {}) }, items },
});

/** Timers that fire only when the test says so; `delays` holds what each was set for, in order. */
function fakeTimers() {
  let now = 0;
  let id = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const delays: number[] = [];
  const timers: Timers = {
    setTimeout(fn, ms) {
      delays.push(ms);
      pending.set(++id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (handle) => pending.delete(handle as number),
  };
  return {
    timers,
    delays,
    pending: () => pending.size,
    async advance(ms: number) {
      now += ms;
      for (const [key, t] of [...pending].sort((a, b) => a[1].at - b[1].at))
        if (t.at <= now && pending.delete(key)) t.fn();
      await flush();
    },
  };
}

interface OpenWatch {
  path: string;
  query: URLSearchParams;
  signal: AbortSignal;
  on: StreamHandlers;
  /** The API server ends the watch (200, its timeoutSeconds) or answers with another status. */
  end(res?: ApiResponse): void;
  send(type: string, object: unknown): void;
}

/** A fake API: lists answered from `lists` in turn (or an error), watches held open until the test ends them. */
function fakeApi() {
  const lists: (ApiResponse | Error)[] = [];
  const gets: string[] = [];
  const watches: OpenWatch[] = [];
  const transport = {
    get: async (path: string) => {
      gets.push(path);
      const next = lists.shift();
      if (next === undefined) throw new Error(`unexpected GET ${path}`);
      if (next instanceof Error) throw next;
      return next;
    },
    stream: (path: string, signal: AbortSignal, on: StreamHandlers) =>
      new Promise<ApiResponse>((resolve, reject) => {
        const url = new URL(path, 'http://x');
        signal.addEventListener('abort', () => reject(signal.reason as unknown), { once: true });
        watches.push({
          path: url.pathname,
          query: url.searchParams,
          signal,
          on,
          end: (res = { status: 200, body: undefined }) => resolve(res),
          send: (type, object) => on.line(JSON.stringify({ type, object })),
        });
      }),
  };
  return { lists, gets, watches, transport, last: () => watches.at(-1) as OpenWatch };
}

function start(api: ReturnType<typeof fakeApi>, clock: ReturnType<typeof fakeTimers>, random = () => 0.5) {
  const c = watchCollection({
    transport: api.transport,
    path: PATH,
    log: silentLogger(),
    what: 'test',
    timers: clock.timers,
    random,
    pageSize: 2,
  });
  const seen: string[] = [];
  for (const e of ['add', 'update', 'delete'] as const)
    c.on(e, (obj) => seen.push(`${e} ${JSON.stringify((obj['metadata'] as { name: string }).name)}`));
  return { c, seen };
}

/** Listed (one page, rv 100, role a) and watching. */
async function watching(): Promise<{
  api: ReturnType<typeof fakeApi>;
  clock: ReturnType<typeof fakeTimers>;
  c: WatchedCollection;
  seen: string[];
}> {
  const api = fakeApi();
  const clock = fakeTimers();
  api.lists.push(list([role('a', '90')], '100'));
  const { c, seen } = start(api, clock);
  await flush();
  assert.equal(api.watches.length, 1);
  api.last().on.open();
  return { api, clock, c, seen };
}

describe('watchCollection', () => {
  test("lists page by page, then watches from the list's resourceVersion with bookmarks and a server timeout", async () => {
    const api = fakeApi();
    const clock = fakeTimers();
    api.lists.push(list([role('a', '1'), role('b', '2')], '100', 'tok'), list([role('c', '3', 'ns2')], '100'));
    const { c, seen } = start(api, clock);
    assert.equal(c.synced(), false);
    await flush();
    assert.deepEqual(api.gets, [`${PATH}?limit=2`, `${PATH}?limit=2&continue=tok`]);
    assert.deepEqual(seen, ['add "a"', 'add "b"', 'add "c"']);
    assert.equal(c.synced(), true);
    assert.equal(c.healthy(), true);
    assert.deepEqual(c.get('c', 'ns2'), role('c', '3', 'ns2'));
    assert.equal(c.get('c', 'ns1'), undefined);
    const w = api.last();
    assert.equal(w.path, PATH);
    assert.deepEqual(Object.fromEntries(w.query), {
      watch: 'true',
      allowWatchBookmarks: 'true',
      resourceVersion: '100',
      timeoutSeconds: '450', // 5 to 10 minutes: random() is 0.5 here
    });
    c.stop();
  });

  test('events are applied; a bookmark moves the resourceVersion; a watch the server ends resumes from the last', async () => {
    const { api, c, seen } = await watching();
    const w = api.last();
    w.send('ADDED', role('b', '101'));
    w.send('MODIFIED', role('a', '102'));
    w.send('DELETED', role('b', '103'));
    w.send('BOOKMARK', { kind: 'Role', metadata: { resourceVersion: '150' } });
    assert.deepEqual(seen, ['add "a"', 'add "b"', 'update "a"', 'delete "b"']);
    assert.deepEqual(c.get('a', 'ns1'), role('a', '102'));
    assert.equal(c.get('b', 'ns1'), undefined, 'a deleted object is not kept');
    w.end();
    await flush();
    assert.equal(api.watches.length, 2, 'resumed at once, without a list');
    assert.equal(api.last().query.get('resourceVersion'), '150');
    assert.equal(api.gets.length, 1);
    assert.equal(c.healthy(), true);
    c.stop();
  });

  test('a watch that sends nothing, not even a bookmark, is abandoned at the deadline and resumed', async () => {
    const { api, clock, c } = await watching();
    const silent = api.last();
    await clock.advance(INACTIVITY_MS - 1);
    assert.equal(silent.signal.aborted, false);
    assert.equal(api.watches.length, 1);
    await clock.advance(1);
    assert.equal(silent.signal.aborted, true, 'the silent connection is given up');
    assert.equal(api.watches.length, 2);
    assert.equal(api.last().query.get('resourceVersion'), '100');
    assert.equal(c.healthy(), false, 'not healthy until the new watch answers');
    api.last().on.open();
    assert.equal(c.healthy(), true);
    c.stop();
  });

  test('each event or bookmark restarts the deadline', async () => {
    const { api, clock, c } = await watching();
    const w = api.last();
    await clock.advance(INACTIVITY_MS - 1);
    w.send('BOOKMARK', { metadata: { resourceVersion: '110' } });
    await clock.advance(INACTIVITY_MS - 1);
    w.send('MODIFIED', role('a', '111'));
    await clock.advance(INACTIVITY_MS - 1);
    assert.equal(w.signal.aborted, false);
    assert.equal(api.watches.length, 1);
    await clock.advance(1);
    assert.equal(api.last().query.get('resourceVersion'), '111');
    c.stop();
  });

  for (const [how, gone] of [
    ['answered 410 Gone', (w: OpenWatch) => w.end({ status: 410, body: { kind: 'Status', code: 410 } })],
    [
      'sent an ERROR event with 410 (the watch cache: too old resource version)',
      (w: OpenWatch) =>
        w.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' }),
    ],
  ] as const)
    test(`a watch ${how} relists: what vanished is deleted, what changed updated`, async () => {
      const { api, c, seen } = await watching();
      api.lists.push(list([role('a', '200'), role('n', '201')], '300'));
      gone(api.last());
      await flush();
      assert.equal(api.gets.length, 2);
      assert.deepEqual(seen, ['add "a"', 'update "a"', 'add "n"']);
      assert.equal(api.last().query.get('resourceVersion'), '300');
      api.lists.push(list([role('n', '201')], '400'));
      gone(api.last());
      await flush();
      assert.deepEqual(seen.slice(3), ['delete "a"']);
      assert.equal(api.last().query.get('resourceVersion'), '400');
      c.stop();
    });

  test('another ERROR event: unhealthy, then the watch resumes after the backoff from the last resourceVersion', async () => {
    const { api, clock, c } = await watching();
    api.last().send('MODIFIED', role('a', '120'));
    api.last().send('ERROR', { kind: 'Status', code: 500, message: 'etcdserver: request timed out' });
    await flush();
    assert.equal(c.healthy(), false);
    assert.equal(api.watches.length, 1);
    await clock.advance(1000);
    assert.equal(api.watches.length, 2);
    assert.equal(api.last().query.get('resourceVersion'), '120');
    assert.equal(api.gets.length, 1, 'resumed, not relisted');
    c.stop();
  });

  test('failures back off doubling from 1 s to a cap of 30 s, jittered between half and all of the step', async () => {
    const api = fakeApi();
    const clock = fakeTimers();
    let r = 0.5;
    for (let i = 0; i < 8; i++) api.lists.push(new Error('connect ECONNREFUSED'));
    const { c } = start(api, clock, () => r);
    await flush();
    for (let i = 0; i < 7; i++) {
      if (i === 6) r = 0;
      await clock.advance(60_000);
    }
    // The sleeps between attempts (the list pages' own deadlines run on real timers, cleared when a page answers).
    assert.deepEqual(clock.delays, [750, 1500, 3000, 6000, 12000, 22500, 22500, 15000]);
    assert.equal(api.gets.length, 8);
    assert.equal(c.synced(), false);
    assert.equal(c.healthy(), false);
    r = 0.5;
    api.lists.push(list([], '5'));
    await clock.advance(60_000);
    assert.equal(c.synced(), true);
    // A success starts the backoff again from 1 s.
    api.last().end({ status: 500, body: { kind: 'Status', message: 'boom' } });
    await flush();
    assert.deepEqual(clock.delays.slice(8), [INACTIVITY_MS, 750]);
    c.stop();
  });

  test('a watch the server ends without a single event is resumed after the backoff, not at once', async () => {
    const { api, clock, c } = await watching();
    api.last().end();
    await flush();
    assert.equal(api.watches.length, 1);
    assert.equal(c.healthy(), true, 'nothing was missed: the next watch starts where this one did');
    await clock.advance(1000);
    assert.equal(api.watches.length, 2);
    c.stop();
  });

  test('a line that is not a watch event is an error: the watch is dropped and resumed after the backoff', async () => {
    const { api, clock, c } = await watching();
    const w = api.last();
    w.on.line('<html>proxy error</html>');
    assert.equal(w.signal.aborted, true);
    await flush();
    assert.equal(c.healthy(), false);
    await clock.advance(1000);
    assert.equal(api.watches.length, 2);
    c.stop();
  });

  test('a failed relist keeps the objects, unhealthy, and retries the list', async () => {
    const { api, clock, c } = await watching();
    api.lists.push({ status: 403, body: { kind: 'Status', message: 'forbidden' } });
    api.last().end({ status: 410, body: {} });
    await flush();
    assert.equal(c.healthy(), false);
    assert.deepEqual(c.get('a', 'ns1'), role('a', '90'));
    api.lists.push(list([], '500'));
    await clock.advance(1000);
    assert.equal(c.healthy(), true);
    assert.equal(c.get('a', 'ns1'), undefined);
    c.stop();
  });

  test('stop aborts the watch and starts nothing more', async () => {
    const { api, clock, c } = await watching();
    c.stop();
    await flush();
    assert.equal(api.last().signal.aborted, true);
    assert.equal(c.healthy(), false);
    await clock.advance(INACTIVITY_MS * 2);
    assert.equal(api.watches.length, 1);
    assert.equal(clock.pending(), 0);
  });
});
