// One meaning per exit code across commands: 0 clean, 1 denied or findings, 2 usage, input, config or start-up
// error, 3 cluster error. Errors carry their code; `serve` exits 2 when it cannot start.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createCertificateAuthority, issueServingCertificate } from '../../src/infrastructure/certs/pki.js';
import { AppError, ExitCode, exitCodeFor, type ErrorCode } from '../../src/errors.js';
import { cli } from '../helpers/cli.js';
import { makePki } from '../helpers/tls.js';

const DAY = 86_400_000;

describe('exit codes', () => {
  test('each error code maps to one documented exit code; an unclassified error is a start-up or input error', () => {
    const table: Record<ErrorCode, number> = {
      CONFIG_INVALID: 2,
      INPUT_INVALID: 2,
      USAGE: 2,
      TLS_INVALID: 2,
      TLS_NOT_YET_VALID: 2,
      INTERNAL: 2,
      CLUSTER: 3,
      LOOKUP_TIMEOUT: 3,
    };
    for (const [code, exit] of Object.entries(table)) {
      assert.equal(exitCodeFor(new AppError(code as ErrorCode, 'x')), exit, code);
      assert.equal(new AppError(code as ErrorCode, 'x').exitCode, exit, code);
    }
    assert.equal(exitCodeFor(new Error('listen EADDRINUSE')), ExitCode.Usage);
    assert.equal(exitCodeFor('a string'), ExitCode.Usage);
  });
});

describe('serve exits 2 when it cannot start', () => {
  const quiet = { HOOKKEEPER_LOG_LEVEL: 'silent' };

  test('an invalid policy', async () => {
    const pki = await makePki();
    const config = join(pki.dir, 'policy.yaml');
    await writeFile(config, 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nstrictOwner: true\n');
    const r = await cli(
      [
        'serve',
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--config',
        config,
        '--tls-cert',
        pki.certFile,
        '--tls-key',
        pki.keyFile,
      ],
      { env: quiet },
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /policy\.yaml:3 strictOwner: unknown key "strictOwner": did you mean "strictOwners"\?/);
  });

  test('a certificate that has expired or is not valid yet', async () => {
    const pki = await makePki();
    const ca = await createCertificateAuthority({ commonName: 'ca', days: 30, now: new Date(Date.now() - 10 * DAY) });
    for (const [from, says] of [
      [-3 * DAY, /tls\.crt has expired: valid until/],
      [DAY, /tls\.crt is not valid yet: valid from/],
    ] as const) {
      const leaf = await issueServingCertificate(ca, {
        commonName: 'x',
        dnsNames: [],
        ips: ['127.0.0.1'],
        days: 1,
        now: new Date(Date.now() + from),
      });
      await Promise.all([writeFile(pki.certFile, leaf.certPem), writeFile(pki.keyFile, leaf.keyPem)]);
      const r = await cli(
        ['serve', '--port', '0', '--host', '127.0.0.1', '--tls-cert', pki.certFile, '--tls-key', pki.keyFile],
        { env: quiet },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, says);
    }
  });

  test('a port already in use', async () => {
    const pki = await makePki();
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const port = String((taken.address() as AddressInfo).port);
      const r = await cli(
        ['serve', '--port', port, '--host', '127.0.0.1', '--tls-cert', pki.certFile, '--tls-key', pki.keyFile],
        { env: quiet },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /EADDRINUSE/);
    } finally {
      taken.close();
    }
  });
});
