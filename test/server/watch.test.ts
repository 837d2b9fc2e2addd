// The file watcher behind certificate and policy hot reload: one reload per change, never one for a torn read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readAgreed, watchFiles } from '../../src/server/watch.js';

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

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('watchFiles', () => {
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
      await settle(30);
      assert.equal(changes, 0);
      pair.version = 'new';
      await settle(40);
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
      await settle(60);
      assert.equal(pair.version, 'new');
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
      await settle(60);
      assert.deepEqual(loaded.slice(0, 1), ['cert:new key:new']);
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
      await settle(40);
      assert.deepEqual(errors, ['ENOENT']);
    } finally {
      watch.stop();
    }
  });

  test('start-up reads until two reads agree, and the watch starts from what was loaded, not from a later read', async () => {
    const pair = new Pair();
    // The files change while serve starts: the first read is torn (old certificate, new key).
    pair.swapAfter = 1;
    const start = await readAgreed(['cert', 'key'], pair.read);
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
      await settle(40);
      assert.deepEqual(loaded, ['cert:newer']);
    } finally {
      watch.stop();
    }
  });
});
