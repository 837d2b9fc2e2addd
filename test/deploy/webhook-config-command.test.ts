// `hookkeeper webhook-config render` with injected streams: YAML documents or a JSON List on stdout, usage errors exit 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { renderWebhookConfigurations } from '../../src/compilers/deploy/render.js';
import { cli } from '../helpers/cli.js';

const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const bundle = Buffer.from(pem).toString('base64');

test('render --url prints the two configurations as YAML documents', async () => {
  const result = await cli(['webhook-config', 'render', '--ca-bundle', bundle, '--url', 'https://127.0.0.1:9443']);
  assert.equal(result.code, 0);
  assert.equal(
    result.stderr,
    'note: every namespace is guarded (hookkeeper outside the cluster; --namespace names the one it runs in)\n',
  );
  const docs = parseAllDocuments(result.stdout);
  assert.ok(Array.isArray(docs));
  assert.deepEqual(
    docs.map((d) => d.toJS() as unknown),
    renderWebhookConfigurations({ caBundle: bundle, url: 'https://127.0.0.1:9443' }),
  );
});

test('render --ca-file --service --output json prints a v1 List', async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), 'hookkeeper-render-'));
  t.after(() => rm(cwd, { recursive: true, force: true }));
  await writeFile(join(cwd, 'ca.crt'), pem);
  const result = await cli(
    [
      'webhook-config',
      'render',
      '--ca-file',
      'ca.crt',
      '--service',
      'hk',
      '--namespace',
      'ops',
      '--port',
      '8443',
      '--name',
      'hk',
      '--output',
      'json',
    ],
    { cwd },
  );
  assert.equal(result.code, 0);
  assert.deepEqual(JSON.parse(result.stdout), {
    apiVersion: 'v1',
    kind: 'List',
    items: renderWebhookConfigurations({
      caBundle: bundle,
      service: { name: 'hk', namespace: 'ops', port: 8443 },
      name: 'hk',
    }),
  });
});

test('render usage errors exit 2 with the reason', async () => {
  const cases: [string[], RegExp][] = [
    [['--url', 'https://127.0.0.1:1'], /--ca-bundle, --ca-file: both or neither given; give exactly one of them/],
    [['--ca-bundle', bundle], /--url, --service: both or neither given; give exactly one of them/],
    [
      ['--ca-bundle', bundle, '--url', 'https://a', '--service', 'hk', '--namespace', 'ns'],
      /--url, --service: both or neither given; give exactly one of them/,
    ],
    [['--ca-bundle', bundle, '--service', 'hk'], /--service: needs --namespace; /],
    [['--ca-bundle', bundle, '--url', 'http://127.0.0.1:1'], /must use https/],
    [
      ['--ca-bundle', bundle, '--url', 'https://127.0.0.1:1', '--output', 'toml'],
      /-o\/--output: "toml" is not an output format; give yaml or json/,
    ],
    [['--ca-bundle', pem, '--url', 'https://127.0.0.1:1'], /base64 of a PEM CA certificate/],
    [['--ca-file', '/nonexistent/ca.crt', '--url', 'https://127.0.0.1:1'], /cannot read --ca-file/],
  ];
  for (const [args, message] of cases) {
    const result = await cli(['webhook-config', 'render', ...args]);
    assert.equal(result.code, 2, args.join(' '));
    assert.equal(result.stdout, '');
    assert.match(result.stderr, message);
  }
});

test('render --namespace platform leaves only platform unguarded, and says so', async () => {
  const result = await cli([
    'webhook-config',
    'render',
    '--ca-bundle',
    bundle,
    '--service',
    'hk',
    '--namespace',
    'platform',
  ]);
  assert.equal(result.code, 0, result.stderr);
  const selectors = parseAllDocuments(result.stdout).flatMap((d) =>
    (d.toJS() as { webhooks: Array<{ namespaceSelector: unknown }> }).webhooks.map((w) => w.namespaceSelector),
  );
  const platform = {
    matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['platform'] }],
  };
  assert.deepEqual(selectors, [platform, platform, platform]);
  assert.match(result.stderr, /note: every namespace but platform, where hookkeeper runs, is guarded/);
  const outside = await cli(['webhook-config', 'render', '--ca-bundle', bundle, '--url', 'https://127.0.0.1:1']);
  assert.doesNotMatch(outside.stdout, /namespaceSelector/);
  assert.match(outside.stderr, /note: every namespace is guarded/);
});
