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
      'hookkeeper serve: --log-level: "verbose" is not a log level; give one of trace, debug, info, warn, error, fatal, silent\n',
    );
  });

  test('HOOKKEEPER_LOG_LEVEL is named when it is the bad one', async () => {
    const r = await cli(['serve'], { env: { HOOKKEEPER_LOG_LEVEL: 'loud' } });
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      'hookkeeper serve: HOOKKEEPER_LOG_LEVEL: "loud" is not a log level; give one of trace, debug, info, warn, error, fatal, silent\n',
    );
  });

  for (const port of ['70000', '65536', 'http']) {
    test(`--port ${port} is refused before anything starts`, async () => {
      const r = await cli(['serve', '--port', port]);
      assert.equal(r.code, 2);
      assert.equal(
        r.stderr,
        `hookkeeper serve: --port: "${port}" is not a port number; give 0 (any free port) to 65535\n`,
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

/**
 * One form for every flag error, commander's and hookkeeper's own: `hookkeeper <command>: <flag>: <what is wrong>;
 * <what works>`, one line, exit 2. Commander's defaults ("error: unknown option '--x'") are reworded into it.
 */
const FLAG_ERROR = /^hookkeeper (?:[a-z-]+ )*[a-z-]+: (?:-[a-z]\/)?--[a-z0-9-]+(?:, --[a-z0-9-]+)*: [^;\n]+; [^\n]+\n$/;

describe('flag errors: one form across commands', () => {
  const commands = [
    ['serve'],
    ['review'],
    ['validate'],
    ['audit'],
    ['explain'],
    ['policy', 'check'],
    ['test'],
    ['certs'],
    ['webhook-config', 'render'],
    ['admission-policy', 'render'],
    ['version'],
  ];
  for (const cmd of commands) {
    test(`${cmd.join(' ')} --no-such-flag: no such option, and where the options are`, async () => {
      const r = await cli([...cmd, '--no-such-flag']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, FLAG_ERROR);
      assert.equal(
        r.stderr,
        `hookkeeper ${cmd.join(' ')}: --no-such-flag: no such option; see hookkeeper ${cmd.join(' ')} --help\n`,
      );
    });
  }

  const badValues: Array<[string[], RegExp]> = [
    [['serve', '--log-level', 'loud'], /: --log-level: "loud" is not a log level; give one of trace, debug, /],
    [['serve', '--port', 'http'], /: --port: "http" is not a port number; give 0 \(any free port\) to 65535/],
    [['serve', '--lookup-budget', 'x'], /: --lookup-budget: "x" is not a whole number; /],
    [['validate', '--fail-on', 'error', 'x.yaml'], /: --fail-on: "error" is not a severity; give deny or warn/],
    [['validate', '-o', 'xml', 'x.yaml'], /: -o\/--output: "xml" is not an output format; give one of text, json, /],
    [['audit', '-o', 'xml'], /: -o\/--output: "xml" is not an output format; give one of /],
    [['explain', '-o', 'xml', 'machine', 'm'], /: -o\/--output: "xml" is not an output format; give one of /],
    [['test', '-o', 'xml', '.'], /: -o\/--output: "xml" is not an output format; give one of /],
    [['version', '-o', 'xml'], /: -o\/--output: "xml" is not an output format; give text or json/],
    [['policy', 'check', '-o', 'xml', 'p.yaml'], /: -o\/--output: "xml" is not an output format; give text or json/],
    [['webhook-config', 'render', '-o', 'xml'], /: -o\/--output: "xml" is not an output format; give yaml or json/],
    [['admission-policy', 'render', '-o', 'xml'], /: -o\/--output: "xml" is not an output format; give yaml or json/],
    [['admission-policy', 'render', '--k8s-version', 'x'], /: --k8s-version: "x" is not a Kubernetes version; /],
    [['certs', '--out', 'd', '--service', 's', '--namespace', 'n', '--days', 'y'], /: --days: "y" is not a whole/],
    // A flag given without its value: commander's words, reworded.
    [['validate', '--config'], /^hookkeeper validate: --config: needs a value; give --config <file>\n$/],
    [['test', '-o'], /^hookkeeper test: -o\/--output: needs a value; give -o, --output <format>\n$/],
  ];
  for (const [args, wording] of badValues) {
    test(`${args.join(' ')}: the value is named, and what works`, async () => {
      const r = await cli(args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, FLAG_ERROR);
      assert.match(r.stderr, wording);
    });
  }

  test('a near miss of a flag is suggested', async () => {
    const r = await cli(['validate', '--fail-onn', 'warn']);
    assert.equal(r.stderr, 'hookkeeper validate: --fail-onn: no such option; did you mean --fail-on?\n');
  });

  test('an unknown command is named with the commands there are', async () => {
    const r = await cli(['valdate']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'hookkeeper: valdate: no such command; did you mean validate?\n');
  });
});
