// renderWebhookConfigurations: the base's webhooks with a url or Service clientConfig and the caBundle, exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot, renderWebhookConfigurations } from '../../src/compilers/deploy/render.js';
import { AppError } from '../../src/errors.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { NOT_FINISHING_DELETION } from '../../src/compilers/native/match.js';
import {
  mutatingObjectSelector,
  mutatingWebhookCondition,
  validatingCreateCondition,
  validatingUpdateCondition,
} from '../../src/core/cel/webhook-conditions.js';

const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const bundle = Buffer.from(pem).toString('base64');
const usage = (err: unknown): boolean => err instanceof AppError && err.code === 'USAGE';

test('url form: url + the webhook path, and the caBundle', () => {
  const [validating, mutating] = renderWebhookConfigurations({ caBundle: bundle, url: 'https://127.0.0.1:9443' });
  assert.equal(validating?.kind, 'ValidatingWebhookConfiguration');
  assert.equal(mutating?.kind, 'MutatingWebhookConfiguration');
  assert.deepEqual(
    validating?.webhooks.map((w) => w.clientConfig),
    [
      { url: 'https://127.0.0.1:9443/validate', caBundle: bundle },
      { url: 'https://127.0.0.1:9443/validate', caBundle: bundle },
    ],
  );
  assert.deepEqual(
    mutating?.webhooks.map((w) => w.clientConfig),
    [{ url: 'https://127.0.0.1:9443/mutate', caBundle: bundle }],
  );
});

test('url form keeps a path prefix and drops a trailing slash', () => {
  const [validating] = renderWebhookConfigurations({ caBundle: bundle, url: 'https://hooks.example:8443/hk/' });
  assert.deepEqual(validating?.webhooks[0]?.clientConfig, {
    url: 'https://hooks.example:8443/hk/validate',
    caBundle: bundle,
  });
});

test('service form: name, namespace, port (default 443) and path', () => {
  const [validating, mutating] = renderWebhookConfigurations({
    caBundle: bundle,
    service: { name: 'hk', namespace: 'ops' },
  });
  assert.deepEqual(validating?.webhooks[0]?.clientConfig, {
    service: { name: 'hk', namespace: 'ops', port: 443, path: '/validate' },
    caBundle: bundle,
  });
  assert.deepEqual(mutating?.webhooks[0]?.clientConfig, {
    service: { name: 'hk', namespace: 'ops', port: 443, path: '/mutate' },
    caBundle: bundle,
  });
  const [withPort] = renderWebhookConfigurations({
    caBundle: bundle,
    service: { name: 'hk', namespace: 'ops', port: 8443 },
  });
  assert.deepEqual(withPort?.webhooks[0]?.clientConfig, {
    service: { name: 'hk', namespace: 'ops', port: 8443, path: '/validate' },
    caBundle: bundle,
  });
});

test('everything but clientConfig comes from webhook-config/base, with the overrides applied', () => {
  const baseDir = join(packageRoot(), 'webhook-config', 'base');
  const baseValidating = parse(readFileSync(join(baseDir, 'validating-webhook-configuration.yaml'), 'utf8')) as {
    webhooks: Record<string, unknown>[];
  };
  const [plain] = renderWebhookConfigurations({
    caBundle: bundle,
    service: { name: 'hookkeeper', namespace: 'hookkeeper' },
  });
  const { clientConfig: _a, ...rendered } = plain?.webhooks[0] ?? {};
  const { clientConfig: _b, ...fromBase } = baseValidating.webhooks[0] ?? {};
  assert.deepEqual(rendered, fromBase);

  const selector = { matchLabels: { team: 'infra' } };
  const [validating, mutating] = renderWebhookConfigurations({
    caBundle: bundle,
    url: 'https://127.0.0.1:1',
    name: 'hookkeeper-e2e',
    failurePolicy: { validating: 'Ignore', mutating: 'Fail' },
    namespaceSelector: selector,
  });
  assert.equal(validating?.metadata.name, 'hookkeeper-e2e');
  assert.equal(mutating?.metadata.name, 'hookkeeper-e2e');
  assert.equal(validating?.webhooks[0]?.failurePolicy, 'Ignore');
  assert.equal(mutating?.webhooks[0]?.failurePolicy, 'Fail');
  assert.deepEqual(validating?.webhooks[0]?.namespaceSelector, selector);
  assert.notEqual(validating?.webhooks[0]?.namespaceSelector, selector, "a copy, not the caller's object");
});

test('exactly one of url and service; the url must be plain https; the caBundle must be base64 PEM', () => {
  assert.throws(() => renderWebhookConfigurations({ caBundle: bundle }), usage);
  assert.throws(
    () => renderWebhookConfigurations({ caBundle: bundle, url: 'https://a', service: { name: 'a', namespace: 'b' } }),
    usage,
  );
  for (const url of [
    'http://127.0.0.1:1',
    'https://u:p@127.0.0.1:1',
    'https://127.0.0.1:1/?x=1',
    'https://127.0.0.1:1/#f',
    'not a url',
  ]) {
    assert.throws(() => renderWebhookConfigurations({ caBundle: bundle, url }), usage, url);
  }
  assert.throws(
    () => renderWebhookConfigurations({ caBundle: bundle, service: { name: 'a', namespace: 'b', port: 70000 } }),
    usage,
  );
  assert.throws(() => renderWebhookConfigurations({ caBundle: pem, url: 'https://127.0.0.1:1' }), usage);
  assert.throws(
    () =>
      renderWebhookConfigurations({ caBundle: Buffer.from('hello').toString('base64'), url: 'https://127.0.0.1:1' }),
    usage,
  );
});

test('every webhook leaves open only the namespace hookkeeper runs in: the Service namespace, or the one given with a url', () => {
  const selectors = (configs: ReturnType<typeof renderWebhookConfigurations>): unknown[] =>
    configs.flatMap((c) => c.webhooks.map((w) => w.namespaceSelector));
  const notIn = (ns: string) => ({
    matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [ns] }],
  });
  const platform = renderWebhookConfigurations({ caBundle: bundle, service: { name: 'hk', namespace: 'platform' } });
  assert.deepEqual(selectors(platform), [notIn('platform'), notIn('platform'), notIn('platform')]);
  // hookkeeper outside the cluster (a url, no namespace): nothing of the cluster needs to stay open.
  const outside = renderWebhookConfigurations({ caBundle: bundle, url: 'https://127.0.0.1:1' });
  assert.deepEqual(selectors(outside), [undefined, undefined, undefined]);
  const inside = renderWebhookConfigurations({ caBundle: bundle, url: 'https://127.0.0.1:1', namespace: 'ops' });
  assert.deepEqual(selectors(inside), [notIn('ops'), notIn('ops'), notIn('ops')]);
});

test("the mutating webhook's matchCondition follows the policy given, the embedded default's without one", () => {
  const condition = (configs: ReturnType<typeof renderWebhookConfigurations>): unknown =>
    configs[1]?.webhooks[0]?.['matchConditions'];
  const url = 'https://127.0.0.1:1';
  assert.deepEqual(condition(renderWebhookConfigurations({ caBundle: bundle, url })), [
    mutatingWebhookCondition(DEFAULT_POLICY),
  ]);
  const rule = DEFAULT_POLICY.defaultHooks[0];
  assert.ok(rule);
  const policy = {
    ...DEFAULT_POLICY,
    defaultHooks: [{ ...rule, match: { ...rule.match, namespaces: ['capi-system'] } }],
  };
  const own = condition(renderWebhookConfigurations({ caBundle: bundle, url, policy }));
  assert.deepEqual(own, [mutatingWebhookCondition(policy)]);
  assert.match(JSON.stringify(own), /capi-system/);
});

test("the validating webhook's UPDATE and CREATE conditions and the mutating webhook's objectSelector follow the policy given", () => {
  const url = 'https://127.0.0.1:1';
  const machines = [
    { group: 'machine.openshift.io', kind: 'Machine' },
    { group: 'cluster.x-k8s.io', kind: 'Machine' },
  ];
  const parts = (configs: ReturnType<typeof renderWebhookConfigurations>): unknown[] => [
    configs[0]?.webhooks.map((w) => w['matchConditions']),
    configs[1]?.webhooks[0]?.['objectSelector'],
  ];
  const base = renderWebhookConfigurations({ caBundle: bundle, url });
  assert.deepEqual(parts(base), [
    [
      [{ ...NOT_FINISHING_DELETION }, validatingUpdateCondition(DEFAULT_POLICY)],
      [validatingCreateCondition(DEFAULT_POLICY)],
    ],
    mutatingObjectSelector(DEFAULT_POLICY, machines),
  ]);
  const rule = DEFAULT_POLICY.defaultHooks[0];
  assert.ok(rule);
  const selector = { matchLabels: { 'example.com/protected': 'true' } };
  const policy = { ...DEFAULT_POLICY, defaultHooks: [{ ...rule, match: { ...rule.match, labelSelector: selector } }] };
  const own = renderWebhookConfigurations({ caBundle: bundle, url, policy });
  assert.deepEqual(parts(own), [
    [[{ ...NOT_FINISHING_DELETION }, validatingUpdateCondition(policy)], [validatingCreateCondition(policy)]],
    selector,
  ]);
  // A rule turned off reads nothing: without owner-references, a CREATE's controller references are not looked at.
  const noRefs = {
    ...DEFAULT_POLICY,
    enforcement: { ...DEFAULT_POLICY.enforcement, 'owner-references': 'off' as const },
  };
  const creates = renderWebhookConfigurations({ caBundle: bundle, url, policy: noRefs })[0]?.webhooks[1]?.[
    'matchConditions'
  ] as Array<{ expression: string }>;
  assert.match(validatingCreateCondition(DEFAULT_POLICY).expression, /ownerReferences/);
  assert.doesNotMatch(creates[0]?.expression ?? 'ownerReferences', /ownerReferences/);
  assert.match(JSON.stringify(own[0]), /example\.com\/protected/);
  // Two rules selecting by different labels: no one objectSelector says both.
  const two = { ...policy, defaultHooks: [...policy.defaultHooks, rule] };
  assert.equal(parts(renderWebhookConfigurations({ caBundle: bundle, url, policy: two }))[1], undefined);
});
