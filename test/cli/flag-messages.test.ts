// Flags and variables refused in hookkeeper's own words, with what to give instead; `hookkeeper version`.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cli } from '../helpers/cli.js';

describe('flag and variable messages', () => {
  test('--log-level verbose names the levels serve accepts', async () => {
    const r = await cli(['serve', '--log-level', 'verbose']);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      'hookkeeper serve: --log-level must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"\n',
    );
  });

  test('HOOKKEEPER_LOG_LEVEL is named when it is the bad one', async () => {
    const r = await cli(['serve'], { env: { HOOKKEEPER_LOG_LEVEL: 'loud' } });
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      'hookkeeper serve: HOOKKEEPER_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"\n',
    );
  });

  for (const port of ['70000', '65536', 'http']) {
    test(`--port ${port} is refused before anything starts`, async () => {
      const r = await cli(['serve', '--port', port]);
      assert.equal(r.code, 2);
      assert.equal(
        r.stderr,
        `hookkeeper serve: --port must be a port number from 0 (any free port) to 65535, got "${port}"\n`,
      );
    });
  }

  for (const [given, k8s] of [
    ['4.18', '1.31'],
    ['v4.21.3', '1.34'],
  ] as const) {
    test(`--k8s-version ${given} is recognised as OpenShift and the Kubernetes version it ships named`, async () => {
      const r = await cli(['admission-policy', 'render', '--k8s-version', given]);
      assert.equal(r.code, 2);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /looks like an OpenShift version/);
      assert.ok(r.stderr.includes(`ships Kubernetes ${k8s}`), r.stderr);
      assert.ok(r.stderr.includes(`--k8s-version ${k8s}`), r.stderr);
    });
  }

  test('HOOKKEEPER_CONFIG pointing nowhere is one line naming the variable', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hk-config-var-'));
    for (const args of [['review'], ['admission-policy', 'render'], ['serve']]) {
      const r = await cli(args, { env: { HOOKKEEPER_CONFIG: 'no/such/policy.yaml' }, cwd });
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(
        r.stderr,
        `hookkeeper ${args.join(' ')}: HOOKKEEPER_CONFIG is no/such/policy.yaml, which does not exist: point it at a policy file, or unset it for the embedded default policy\n`,
      );
    }
  });

  test('hookkeeper version prints the version of the package, as --version does', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const r = await cli(['version']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `hookkeeper ${version}\n`);
    assert.equal((await cli(['--version'])).stdout, `${version}\n`);
    const json = await cli(['version', '-o', 'json']);
    assert.deepEqual(JSON.parse(json.stdout), { version });
  });
});
