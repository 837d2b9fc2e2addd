// The requests' time limit, on node:test's mock timers: it aborts exactly at its time and not before, follows the
// caller's signal, lets go of timer and caller when the request ends, and bounds a request that ignores its signal.
// (That the timer also survives garbage collection is timeouts-gc.test.ts's subject: forced GC needs real timers.)
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { RequestTimeout, startDeadline, withDeadline } from '../../src/infrastructure/kube/deadline.js';

const never = (): Promise<never> => new Promise(() => undefined);

/** Lets promise callbacks run (mock timers fire synchronously inside tick()). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('request deadline', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  test('aborts with a RequestTimeout at its time, not a millisecond before', () => {
    const deadline = startDeadline(100);
    mock.timers.tick(99);
    assert.equal(deadline.signal.aborted, false);
    assert.equal(deadline.expired(), false);
    mock.timers.tick(1);
    assert.equal(deadline.signal.aborted, true);
    assert.equal(deadline.expired(), true);
    const reason: unknown = deadline.signal.reason;
    assert.ok(reason instanceof RequestTimeout);
    assert.equal(reason.ms, 100);
    assert.equal(reason.message, 'no answer within 100 ms');
  });

  test('end() clears the timer and lets go of the caller: nothing fires afterwards', () => {
    const caller = new AbortController();
    const deadline = startDeadline(100, caller.signal);
    assert.equal(getEventListeners(caller.signal, 'abort').length, 1);
    deadline.end();
    deadline.end();
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
    mock.timers.tick(1_000);
    caller.abort();
    assert.equal(deadline.signal.aborted, false);
  });

  test("the caller's abort ends it at once, with the caller's reason, and is not an expiry", () => {
    const caller = new AbortController();
    const deadline = startDeadline(100, caller.signal);
    const reason = new Error('stopped early');
    caller.abort(reason);
    assert.equal(deadline.signal.aborted, true);
    assert.equal(deadline.signal.reason, reason);
    assert.equal(deadline.expired(), false);
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
    mock.timers.tick(100);
    assert.equal(deadline.expired(), false);

    const late = startDeadline(100, caller.signal);
    assert.equal(late.signal.reason, reason);
  });

  test('race: the answer when it comes in time, its error when it fails', async () => {
    assert.equal(await withDeadline(100, () => Promise.resolve('answer')), 'answer');
    await assert.rejects(
      withDeadline(100, () => Promise.reject(new Error('ECONNREFUSED'))),
      (err: unknown) => err instanceof Error && err.message === 'ECONNREFUSED',
    );
    await assert.rejects(
      withDeadline(100, () => {
        throw new Error('thrown before any promise');
      }),
      (err: unknown) => err instanceof Error && err.message === 'thrown before any promise',
    );
  });

  test('race: a request that ignores its signal still ends at the deadline, with a RequestTimeout', async () => {
    let seen: AbortSignal | undefined;
    const state: { outcome?: unknown } = {};
    void withDeadline(250, (signal) => {
      seen = signal;
      return never();
    }).catch((err: unknown) => (state.outcome = err));
    mock.timers.tick(249);
    await settle();
    assert.equal('outcome' in state, false);
    mock.timers.tick(1);
    await settle();
    assert.ok(state.outcome instanceof RequestTimeout);
    assert.equal(seen?.aborted, true);
  });

  test("race: an already aborted deadline rejects at once, and the work's later failure is not unhandled", async () => {
    const caller = new AbortController();
    caller.abort(new Error('gone'));
    const deadline = startDeadline(100, caller.signal);
    await assert.rejects(deadline.race(Promise.reject(new Error('late failure'))), { message: 'gone' });
  });
});
