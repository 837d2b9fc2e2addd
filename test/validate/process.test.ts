// runBounded: a render's output and stderr, and the bounds every `validate` input has.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { runBounded, STDERR_SHOWN_BYTES, type RunOptions } from '../../src/transports/validate/process.js';

const options = (o: Partial<RunOptions> = {}): RunOptions => ({
  cwd: tmpdir(),
  env: { PATH: process.env['PATH'] },
  timeoutMs: 60_000,
  maxBytes: 1024 * 1024,
  what: '`render`',
  ...o,
});

test('the output of a command that exits 0, byte for byte', async () => {
  assert.equal(await runBounded(['sh', '-c', 'printf "a: 1\\n---\\nb: 2"'], options()), 'a: 1\n---\nb: 2');
});

test('more output than maxBytes: killed, an input error, nothing returned', async () => {
  await assert.rejects(
    runBounded(['sh', '-c', 'head -c 100000 /dev/zero | tr "\\0" x'], options({ maxBytes: 1000 })),
    (err: unknown) =>
      err instanceof AppError &&
      err.code === 'INPUT_INVALID' &&
      /`render` printed more than 1000 bytes/.test(err.message),
  );
});

test('a failure carries the end of stderr, one problem a line; a missing command says it could not run', async () => {
  const long = STDERR_SHOWN_BYTES * 3;
  await assert.rejects(
    runBounded(
      ['sh', '-c', `head -c ${long} /dev/zero | tr "\\0" y >&2; echo >&2; echo "the reason" >&2; exit 4`],
      options(),
    ),
    (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.message, '`render` failed (exit 4)');
      assert.ok(err.problems.at(-1)?.message === 'the reason', 'the last line of stderr');
      assert.ok(err.problems.reduce((n, p) => n + p.message.length, 0) <= STDERR_SHOWN_BYTES);
      return true;
    },
  );
  await assert.rejects(runBounded(['no-such-renderer-hookkeeper'], options()), /cannot run `render`: spawn .*ENOENT/);
});
