// `hookkeeper certs` through commander with injected streams: stdout is the caBundle alone, errors exit 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caBundle } from '../../src/infrastructure/certs/pki.js';
import { cli } from '../helpers/cli.js';

test('certs prints the caBundle as one line on stdout and a summary on stderr', async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), 'hookkeeper-cli-'));
  t.after(() => rm(cwd, { recursive: true, force: true }));
  const result = await cli(
    [
      'certs',
      '--out',
      'certs',
      '--service',
      'hookkeeper',
      '--namespace',
      'hookkeeper',
      '--ip',
      '127.0.0.1',
      '--ip',
      '::1',
      '--days',
      '30',
    ],
    { cwd },
  );
  assert.equal(result.code, 0);
  assert.equal(result.stdout, `${caBundle(await readFile(join(cwd, 'certs', 'ca.crt'), 'utf8'))}\n`);
  assert.match(result.stderr, /created a CA and a serving certificate in .*certs/);
  assert.match(result.stderr, /names: hookkeeper, hookkeeper\.hookkeeper, .*, 127\.0\.0\.1, ::1/);

  const again = await cli(['certs', '--out', 'certs', '--service', 'hookkeeper', '--namespace', 'hookkeeper'], { cwd });
  assert.equal(again.code, 2);
  assert.equal(again.stdout, '');
  assert.match(again.stderr, /^hookkeeper certs: .*ca\.crt already exists: pass --renew/);

  const renewed = await cli(
    [
      'certs',
      '--out',
      'certs',
      '--service',
      'hookkeeper',
      '--namespace',
      'hookkeeper',
      '--renew',
      '--renew-before',
      '7',
    ],
    { cwd },
  );
  assert.equal(renewed.code, 0);
  assert.equal(renewed.stdout, result.stdout, 'same CA, same caBundle');
  assert.match(renewed.stderr, /kept the CA and issued/, 'the names changed (no IPs now), so it was re-issued');
});

test('certs usage errors exit 2 with the reason', async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), 'hookkeeper-cli-'));
  t.after(() => rm(cwd, { recursive: true, force: true }));
  const cases: [string[], RegExp][] = [
    [['certs', '--service', 'hk'], /--out, --namespace: missing; /],
    [
      ['certs', '--out', 'x', '--service', 'hk', '--namespace', 'ns', '--days', 'ten'],
      /--days: "ten" is not a whole number/,
    ],
    [
      ['certs', '--out', 'x', '--service', 'hk', '--namespace', 'ns', '--renew-before', '3'],
      /--renew-before: needs --renew; give --renew too/,
    ],
    [
      ['certs', '--out', 'x', '--service', 'hk', '--namespace', 'ns', '--ip', 'localhost'],
      /"localhost" is not an IP address/,
    ],
  ];
  for (const [args, message] of cases) {
    const result = await cli(args);
    assert.equal(result.code, 2, args.join(' '));
    assert.equal(result.stdout, '');
    assert.match(result.stderr, message);
  }
});
