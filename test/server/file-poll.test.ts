// The file watcher behind certificate and policy hot reload: one reload per change, never one for a torn read.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { readSettled, watchFiles } from '../../src/transports/server/file-poll.js';

/** Two files whose content a test swaps; `swapAfter` swaps both right after that many reads, as a rename would. */
class Pair {
  version = 'old';
  reads = 0;
  swapAfter = Infinity;
  read = async (file: string): Promise<Buffer> => {
    const content = Buffer.from(`${file}:${this.version}`);
    if (++this.reads === this.swapAfter) this.version = 'new';
    return content;
  };
}

/**
 * `polls` polls of a 5 ms watch, on mock timers: each tick fires one poll, and its reads (promises, no I/O) finish
 * before the next.
 */
async function poll(polls = 1): Promise<void> {
  for (let i = 0; i < polls; i++) {
    mock.timers.tick(5);
    await new Promise((r) => setImmediate(r));
  }
}

describe('watchFiles', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
  afterEach(() => mock.timers.reset());

  test('a change is reported once, after the content has changed', async () => {
    const pair = new Pair();
    let changes = 0;
    const watch = await watchFiles(
      ['cert', 'key'],
      5,
      async () => {
        changes++;
      },
      pair.read,
    );
    try {
      await poll(6);
      assert.equal(changes, 0);
      pair.version = 'new';
      await poll();
      assert.equal(changes, 1);
      await poll(8);
      assert.equal(changes, 1);
    } finally {
      watch.stop();
    }
  });

  test('a swap between reading the certificate and the key is one change, not two', async () => {
    const pair = new Pair();
    let changes = 0;
    const watch = await watchFiles(
      ['cert', 'key'],
      5,
      async () => {
        changes++;
      },
      pair.read,
    );
    try {
      // The first poll reads the old certificate, then the swap happens, then it reads the new key.
      pair.swapAfter = pair.reads + 1;
      await poll();
      assert.equal(pair.version, 'new');
      assert.equal(changes, 0, 'a torn read waits for the next poll');
      await poll(12);
      assert.equal(changes, 1);
    } finally {
      watch.stop();
    }
  });

  test('the handler loads the content both reads agreed on, never a later read of a file being rewritten', async () => {
    const pair = new Pair();
    const loaded: string[] = [];
    const watch = await watchFiles(
      ['cert', 'key'],
      5,
      async (agreed) => {
        // A writer starts rewriting the files in place right after the two reads agreed.
        pair.version = 'half-written';
        loaded.push(`${String(await agreed('cert'))} ${String(await agreed('key'))}`);
      },
      pair.read,
    );
    try {
      pair.version = 'new';
      await poll();
      assert.deepEqual(loaded, ['cert:new key:new']);
    } finally {
      watch.stop();
    }
  });

  test('a file that cannot be read is passed on as its read error', async () => {
    let missing = false;
    const errors: string[] = [];
    const read = async (file: string): Promise<Buffer> => {
      if (missing)
        throw Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), { code: 'ENOENT' });
      return Buffer.from(file);
    };
    const watch = await watchFiles(
      ['policy.yaml'],
      5,
      async (agreed) => {
        await agreed('policy.yaml').catch((err: NodeJS.ErrnoException) => {
          errors.push(err.code ?? '');
        });
      },
      read,
    );
    try {
      missing = true;
      await poll();
      assert.deepEqual(errors, ['ENOENT']);
    } finally {
      watch.stop();
    }
  });

  test('start-up reads until two reads agree, and the watch starts from what was loaded, not from a later read', async () => {
    const pair = new Pair();
    // The files change while serve starts: the first read is torn (old certificate, new key).
    pair.swapAfter = 1;
    const start = await readSettled(['cert', 'key'], pair.read);
    assert.deepEqual([String(await start.read('cert')), String(await start.read('key'))], ['cert:new', 'key:new']);

    // Another change lands between that load and the watch's start: the first poll reports it.
    pair.version = 'newer';
    const loaded: string[] = [];
    const watch = await watchFiles(
      ['cert', 'key'],
      5,
      async (agreed) => {
        loaded.push(String(await agreed('cert')));
      },
      pair.read,
      start.fingerprint,
    );
    try {
      await poll(8);
      assert.deepEqual(loaded, ['cert:newer']);
    } finally {
      watch.stop();
    }
  });
});
