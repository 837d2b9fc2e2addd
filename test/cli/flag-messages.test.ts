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

  test('--k8s-version 4.21.3 is recognised as OpenShift and the Kubernetes version it ships suggested', async () => {
    const r = await cli(['admission-policy', 'render', '--k8s-version', 'v4.21.3']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /looks like an OpenShift version: OpenShift 4\.21 ships Kubernetes 1\.34; give that \(--k8s-version 1\.34\)/,
    );
    // What it suggests is accepted.
    assert.equal((await cli(['admission-policy', 'render', '--k8s-version', '1.34'])).code, 0);
  });

  test('--k8s-version 4.18 ships a Kubernetes too old for native policies: nothing refused is suggested', async () => {
    const r = await cli(['admission-policy', 'render', '--k8s-version', '4.18']);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /OpenShift 4\.18 ships Kubernetes 1\.31, older than the 1\.34 this needs \(OpenShift 4\.21\); run the webhook instead/,
    );
    assert.doesNotMatch(r.stderr, /--k8s-version 1\.31/);
  });

  test('render --static renders for 1.37 unless told otherwise: no feature gate to turn on', async () => {
    const out = mkdtempSync(join(tmpdir(), 'hk-static-default-'));
    const byDefault = await cli(['admission-policy', 'render', '--static', out]);
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.doesNotMatch(byDefault.stderr, /feature-gates/);
    const on136 = await cli(['admission-policy', 'render', '--static', out, '--k8s-version', '1.36']);
    assert.equal(on136.code, 0, on136.stderr);
    assert.match(on136.stderr, /--feature-gates=ManifestBasedAdmissionControlConfig=true/);
  });

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
