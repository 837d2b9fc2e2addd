// One child-resource worked example against the real API server: its namespace, a hookkeeper of its own serving the
// example's policy file with parent lookups as hookkeeper's ServiceAccount (--kubeconfig), and webhook entries for
// the child kinds rendered from the "What to add to the cluster" snippet of docs/child-resources.md. Each example's
// objectSelector (its policy's label) keeps every other scenario's requests away from it; teardown removes both
// configurations.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { caBundle } from '../../../src/infrastructure/certs/pki.js';
import { loadPolicyFile } from '../../../src/infrastructure/config/load.js';
import type { ChildRule } from '../../../src/core/policy.js';
import type { KubeObject } from '../../../src/core/types.js';
import { startHookkeeper, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { createRaw, rawRequest } from '../../../testing/control-plane/http.js';
import type { IdentityName } from '../../../testing/control-plane/identities.js';
import type { Resource } from '../../../testing/control-plane/kube.js';
import { ObjectClient } from '../../../testing/control-plane/objects.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { E2EEnv } from '../harness/suite.js';
import { docSection } from '../../helpers/docs.js';

/** The webhook name in the documented snippet; the API server quotes it in denials. */
export const CHILD_WEBHOOK_NAME = 'children.hookkeeper.io';
export const CHILD_DENIAL_PREFIX = `admission webhook "${CHILD_WEBHOOK_NAME}" denied the request: `;

export interface ChildExample {
  /** Short id: names the hookkeeper process, its log and the webhook configurations. */
  id: string;
  /** Under test/fixtures/. */
  policyFile: string;
  namespace: string;
  parent: Resource;
  /** The identity the policy registers as the finalizer's remover (the parent's controller). */
  controller: IdentityName;
}

export interface ChildEnv {
  example: ChildExample;
  rule: ChildRule;
  hookkeeper: Hookkeeper;
  objects(as: IdentityName, resource: Resource): ObjectClient;
  /** Creates a parent (as admin) and returns its uid. */
  createParent(body: KubeObject): Promise<string>;
  teardown(): Promise<void>;
}

type WebhookEntry = Record<string, unknown> & {
  clientConfig: { service?: { path?: string }; url?: string; caBundle?: string };
  rules: Array<Record<string, unknown>>;
};

const CHILD_PAGE = 'docs/child-resources.md';

/** The mutating entry of docs/child-resources.md, "What to add to the cluster": the documentation is what is tested. */
function documentedWebhookEntry(): WebhookEntry {
  const text = docSection(CHILD_PAGE, '## What to add to the cluster');
  const start = text.indexOf('```yaml\n');
  const end = start < 0 ? -1 : text.indexOf('```', start + 8);
  if (end < 0) throw new Error(`${CHILD_PAGE}: no \`\`\`yaml snippet under "## What to add to the cluster"`);
  const entries = parse(text.slice(start + 8, end)) as unknown;
  const entry = Array.isArray(entries) ? (entries[0] as WebhookEntry | undefined) : undefined;
  if (
    !Array.isArray(entries) ||
    entries.length !== 1 ||
    entry?.name !== CHILD_WEBHOOK_NAME ||
    entry.clientConfig.service?.path !== '/mutate'
  ) {
    throw new Error(
      `${CHILD_PAGE}: the snippet under "What to add to the cluster" is not one mutating webhook entry named ${CHILD_WEBHOOK_NAME} with path /mutate`,
    );
  }
  return entry;
}

const RESOURCES: Readonly<Record<string, string>> = { Pod: 'pods', ConfigMap: 'configmaps', Service: 'services' };

/**
 * The documented entry pointed at this hookkeeper by URL and scoped to the rule's kinds and label selector; the
 * validating entry as the page derives it: path /validate, failurePolicy Fail, no reinvocationPolicy, CREATE and
 * UPDATE.
 */
function webhookEntries(
  documented: WebhookEntry,
  rule: ChildRule,
  hookkeeper: Hookkeeper,
): { mutating: WebhookEntry; validating: WebhookEntry } {
  const ca = caBundle(hookkeeper.caPem);
  const resources = rule.match.kinds.map((k) => {
    const plural = k.group === '' ? RESOURCES[k.kind] : undefined;
    if (!plural) throw new Error(`no resource name known for child kind ${k.kind}`);
    return plural;
  });
  const mutating: WebhookEntry = {
    ...structuredClone(documented),
    clientConfig: { url: `${hookkeeper.url}${documented.clientConfig.service?.path ?? ''}`, caBundle: ca },
    objectSelector: structuredClone(rule.match.labelSelector),
    rules: documented.rules.map((r) => ({ ...r, resources })),
  };
  const { reinvocationPolicy: _once, ...rest } = mutating;
  const validating: WebhookEntry = {
    ...structuredClone(rest),
    clientConfig: { url: `${hookkeeper.url}/validate`, caBundle: ca },
    failurePolicy: 'Fail',
    rules: mutating.rules.map((r) => ({ ...r, operations: ['CREATE', 'UPDATE'] })),
  };
  return { mutating, validating };
}

export async function startChildExample(env: E2EEnv, example: ChildExample): Promise<ChildEnv> {
  const { plane } = env;
  const policyFile = join(plane.repoRoot, 'test', 'fixtures', example.policyFile);
  const rule = (await loadPolicyFile(policyFile)).children[0];
  if (!rule) throw new Error(`${example.policyFile} has no child rule`);
  await plane
    .kubeConfig('admin')
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: example.namespace } } });
  const hookkeeper = await startHookkeeper(plane, {
    name: `hookkeeper-children-${example.id}`,
    config: await readFile(policyFile, 'utf8'),
    args: ['--kubeconfig', await plane.kubeConfigFile('hookkeeper')],
  });
  const { mutating, validating } = webhookEntries(documentedWebhookEntry(), rule, hookkeeper);
  const name = `hookkeeper-e2e-children-${example.id}`;
  const admin = plane.identities.admin.token;
  const configurations = [
    {
      path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      kind: 'ValidatingWebhookConfiguration',
      webhook: validating,
    },
    {
      path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
      kind: 'MutatingWebhookConfiguration',
      webhook: mutating,
    },
  ];
  for (const c of configurations) {
    await createRaw(plane.server, plane.caPem, admin, c.path, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: c.kind,
      metadata: { name },
      webhooks: [c.webhook],
    });
  }
  const objects = (as: IdentityName, resource: Resource): ObjectClient => new ObjectClient(plane, as, resource);
  return {
    example,
    rule,
    hookkeeper,
    objects,
    async createParent(body) {
      const meta = body['metadata'] as { namespace: string };
      const { object } = await objects('admin', example.parent).create(meta.namespace, body);
      const uid = (object['metadata'] as { uid?: unknown }).uid;
      if (typeof uid !== 'string') throw new Error('the API server returned a parent without metadata.uid');
      return uid;
    },
    async teardown() {
      for (const c of configurations) {
        const res = await rawRequest({
          url: `${plane.server}${c.path}/${name}`,
          method: 'DELETE',
          ca: plane.caPem,
          token: admin,
        });
        if (res.status !== 200 && res.status !== 404)
          throw new Error(`DELETE ${c.path}/${name}: HTTP ${res.status}: ${res.body}`);
      }
      await hookkeeper.stop();
    },
  };
}

/** Registration reaches the API server's webhook informers asynchronously: poll until `probe` sees the webhooks act. */
export async function waitForChildWebhooks(ctx: ChildEnv, probe: () => Promise<boolean>): Promise<void> {
  await pollUntil(
    `the ${ctx.example.id} child webhooks to act`,
    30_000,
    async () => ((await probe()) ? true : undefined),
    200,
  );
}
