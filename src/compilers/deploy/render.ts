// Webhook configurations for a given endpoint and CA, built from webhook-config/base so the rules have one source of truth.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  mutatingObjectSelector,
  mutatingWebhookCondition,
  CREATE_CONDITION_NAME,
  UPDATE_CONDITION_NAME,
  validatingCreateCondition,
  validatingUpdateCondition,
} from '../../core/cel/webhook-conditions.js';
import type { KindRef, Policy } from '../../core/policy.js';
import { AppError } from '../../errors.js';

export type FailurePolicy = 'Fail' | 'Ignore';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface RenderOptions {
  /** base64 of the PEM CA that signed the serving certificate. */
  caBundle: string;
  /** https://HOST[:PORT][/PREFIX]: each webhook gets its path (/validate, /mutate) appended. */
  url?: string;
  service?: { name: string; namespace: string; port?: number };
  /** metadata.name of both configurations (default: the base's, "hookkeeper"). */
  name?: string;
  failurePolicy?: { validating?: FailurePolicy; mutating?: FailurePolicy };
  /**
   * The namespace hookkeeper runs in, the only one no webhook guards (the way back from a broken webhook must stay
   * open): the Service's namespace, or with a url the one given here; none with a url alone (hookkeeper runs outside
   * the cluster), so every namespace is guarded.
   */
  namespace?: string;
  /** Replaces the namespace exclusion above. */
  namespaceSelector?: LabelSelector;
  /**
   * The policy the webhooks' conditions are derived from: the validating webhook's UPDATE condition, the mutating
   * webhook's objectSelector and matchCondition (default: the base's, the embedded default policy's).
   */
  policy?: Policy;
}

export type ClientConfig =
  | { url: string; caBundle: string }
  | { service: { name: string; namespace: string; port: number; path: string }; caBundle: string };

export interface Webhook {
  name: string;
  clientConfig: ClientConfig;
  failurePolicy?: FailurePolicy;
  namespaceSelector?: LabelSelector;
  [field: string]: unknown;
}

export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
  metadata: { name: string; [field: string]: unknown };
  webhooks: Webhook[];
}

const WEBHOOK_CONFIGURATION_FILES = {
  validating: 'validating-webhook-configuration.yaml',
  mutating: 'mutating-webhook-configuration.yaml',
} as const;

/** Returns [validating, mutating], ready to apply. */
export function renderWebhookConfigurations(opts: RenderOptions): WebhookConfiguration[] {
  checkCaBundle(opts.caBundle);
  const clientConfig = endpoint(opts);
  const namespace = opts.service?.namespace ?? opts.namespace;
  const selector: LabelSelector | undefined =
    opts.namespaceSelector ??
    (namespace === undefined
      ? undefined
      : { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [namespace] }] });
  return (['validating', 'mutating'] as const).map((which) => {
    const config = loadBase(which);
    if (opts.name !== undefined) config.metadata.name = opts.name;
    for (const webhook of config.webhooks) {
      webhook.clientConfig = clientConfig(basePath(webhook, which));
      const policy = opts.failurePolicy?.[which];
      if (policy !== undefined) webhook.failurePolicy = policy;
      if (selector === undefined) delete webhook.namespaceSelector;
      else webhook.namespaceSelector = structuredClone(selector);
      if (opts.policy !== undefined) derive(webhook, which, opts.policy);
    }
    return config;
  });
}

/** Replaces the base's derived selector and condition with the policy's (src/core/cel/webhook-conditions.ts). */
function derive(webhook: Webhook, which: 'validating' | 'mutating', policy: Policy): void {
  const conditions = (webhook['matchConditions'] ?? []) as Array<{ name: string; expression: string }>;
  if (which === 'validating') {
    const at = conditions.findIndex((c) => c.name === UPDATE_CONDITION_NAME);
    if (at >= 0) conditions[at] = validatingUpdateCondition(policy);
    const create = conditions.findIndex((c) => c.name === CREATE_CONDITION_NAME);
    if (create >= 0) conditions[create] = validatingCreateCondition(policy);
    return;
  }
  webhook['matchConditions'] = [mutatingWebhookCondition(policy)];
  const rules = (webhook['rules'] ?? []) as Array<{ apiGroups: string[]; resources: string[] }>;
  const selector = mutatingObjectSelector(policy, machineKinds(rules));
  if (selector === undefined) delete webhook['objectSelector'];
  else webhook['objectSelector'] = selector;
}

/** The Machine kinds a webhook's rules name (the mutating webhook is registered for machines only). */
function machineKinds(rules: ReadonlyArray<{ apiGroups: string[]; resources: string[] }>): KindRef[] {
  return rules.flatMap((r) =>
    r.resources.includes('machines') ? r.apiGroups.map((group) => ({ group, kind: 'Machine' })) : [],
  );
}

/** Exactly one of url and service, checked once; the result makes each webhook's clientConfig from its path. */
function endpoint(opts: RenderOptions): (path: string) => ClientConfig {
  const { caBundle, url, service } = opts;
  if (url !== undefined && service === undefined) {
    const base = checkUrl(url);
    return (path) => ({ url: `${base}${path}`, caBundle });
  }
  if (service !== undefined && url === undefined) {
    const port = service.port ?? 443;
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new AppError('USAGE', `port ${port} is not 1-65535`);
    if (!service.name || !service.namespace) throw new AppError('USAGE', 'a service needs a name and a namespace');
    return (path) => ({ service: { name: service.name, namespace: service.namespace, port, path }, caBundle });
  }
  throw new AppError('USAGE', 'give exactly one of a url or a service for the webhooks to be called at');
}

/**
 * The package root (where package.json and webhook-config/ are), from src/compilers/deploy under tsx or
 * dist/compilers/deploy after a build.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'webhook-config', 'base'))) return dir;
    const parent = dirname(dir);
    if (parent === dir)
      throw new AppError('INTERNAL', `no webhook-config/base above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

function loadBase(which: keyof typeof WEBHOOK_CONFIGURATION_FILES): WebhookConfiguration {
  const file = join(packageRoot(), 'webhook-config', 'base', WEBHOOK_CONFIGURATION_FILES[which]);
  const doc = parse(readFileSync(file, 'utf8')) as Partial<WebhookConfiguration> | null;
  const kind = which === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
  if (
    doc?.kind !== kind ||
    typeof doc.metadata?.name !== 'string' ||
    !Array.isArray(doc.webhooks) ||
    doc.webhooks.length === 0
  ) {
    throw new AppError('INTERNAL', `${file} is not a ${kind} with webhooks`);
  }
  return doc as WebhookConfiguration;
}

/** The path each webhook is served at, as the base's service clientConfig names it. */
function basePath(webhook: Webhook, which: string): string {
  const path = 'service' in webhook.clientConfig ? webhook.clientConfig.service.path : undefined;
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new AppError(
      'INTERNAL',
      `the ${which} webhook ${webhook.name} in webhook-config/base has no clientConfig.service.path`,
    );
  }
  return path;
}

/** The API server's rules for clientConfig.url: https, no user info, query or fragment. Returns it without a trailing slash. */
function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('USAGE', `"${raw}" is not a URL`);
  }
  if (url.protocol !== 'https:') throw new AppError('USAGE', `the webhook url must use https, got "${raw}"`);
  if (url.username || url.password || url.search || url.hash || raw.includes('?') || raw.includes('#')) {
    throw new AppError('USAGE', `the webhook url may not carry user info, a query or a fragment: "${raw}"`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function checkCaBundle(value: string): void {
  const pem = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64').toString('utf8') : '';
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new AppError(
      'USAGE',
      'the caBundle must be the base64 of a PEM CA certificate (as `hookkeeper certs` prints)',
    );
  }
}
