// Builds every overlay with a real kustomize when one is installed ($KUSTOMIZE, `kustomize` or `kubectl kustomize`); skips otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { runCerts } from '../../src/infrastructure/certs/store.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { findKustomize, kustomizeBuild, NO_KUSTOMIZE } from '../helpers/kustomize.js';

type Doc = {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  webhooks?: { name?: string; failurePolicy?: string; clientConfig: { caBundle?: string } }[];
};

const kustomize = findKustomize();
const skip = kustomize ? false : NO_KUSTOMIZE;

function build(dir: string): Doc[] {
  return kustomizeBuild<Doc>(kustomize ?? [], dir);
}

const webhookConfigs = (docs: Doc[]): Doc[] => docs.filter((d) => d.kind.endsWith('WebhookConfiguration'));

test(
  'the openshift and cert-manager overlays build, with their annotations on both webhook configurations',
  { skip },
  () => {
    const openshift = build(join(packageRoot(), 'webhook-config', 'overlays', 'openshift'));
    for (const c of webhookConfigs(openshift))
      assert.equal(c.metadata.annotations?.['service.beta.openshift.io/inject-cabundle'], 'true');
    const certManager = build(join(packageRoot(), 'webhook-config', 'overlays', 'cert-manager'));
    for (const c of webhookConfigs(certManager))
      assert.equal(c.metadata.annotations?.['cert-manager.io/inject-ca-from'], 'hookkeeper/hookkeeper-tls');
    assert.deepEqual(
      certManager
        .filter((d) => d.kind === 'Certificate')
        .map((d) => d.metadata.name)
        .sort(),
      ['hookkeeper-ca', 'hookkeeper-tls'],
    );
  },
);

test(
  'the self-managed overlay builds from `hookkeeper certs` output: the TLS Secret and the caBundle in both webhooks',
  { skip },
  async (t) => {
    const copy = await mkdtemp(join(tmpdir(), 'hookkeeper-kustomize-'));
    t.after(() => rm(copy, { recursive: true, force: true }));
    await cp(join(packageRoot(), 'webhook-config'), copy, { recursive: true });
    const overlay = join(copy, 'overlays', 'self-managed');
    const { caBundle } = await runCerts({
      out: join(overlay, 'certs'),
      service: 'hookkeeper',
      namespace: 'hookkeeper',
      ips: [],
    });

    const docs = build(overlay);
    const secrets = docs.filter((d) => d.kind === 'Secret');
    assert.deepEqual(
      secrets.map((d) => d.metadata.name),
      ['hookkeeper-tls'],
      'the CA-bundle carrier is local-config and left out',
    );
    const configs = webhookConfigs(docs);
    assert.equal(configs.length, 2);
    for (const c of configs) {
      for (const w of c.webhooks ?? []) assert.equal(w.clientConfig.caBundle?.replace(/\s/g, ''), caBundle);
    }
  },
);

/** The shipped native policies, as generated. */
function shippedPolicies(): Doc[] {
  const file = join(packageRoot(), 'webhook-config', 'components', 'native-policies', 'admission-policies.yaml');
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as Doc | null)
    .filter((d): d is Doc => d !== null);
}

type Labelled = Doc & { metadata: { labels?: Record<string, string> } };
const key = (d: Doc): string => `${d.kind} ${d.metadata.name}`;
const byKey = (a: Doc, b: Doc): number => key(a).localeCompare(key(b));

/** As shipped, with the label kustomize adds (kustomize orders objects by kind, which the API server does not mind). */
function labelled(docs: Doc[]): Doc[] {
  return docs
    .map((d) => {
      const copy = structuredClone(d) as Labelled;
      copy.metadata.labels = { ...copy.metadata.labels, 'app.kubernetes.io/part-of': 'hookkeeper' };
      return copy;
    })
    .sort(byKey);
}

test(
  'overlays/native builds the shipped native policies, labelled part-of hookkeeper, and nothing of the webhook',
  { skip },
  () => {
    const built = build(join(packageRoot(), 'webhook-config', 'overlays', 'native'));
    assert.deepEqual([...built].sort(byKey), labelled(shippedPolicies()));
  },
);

test(
  'components/both added to a certificate overlay: its objects, every webhook at failurePolicy Ignore, plus the native policies',
  { skip },
  async (t) => {
    const copy = await mkdtemp(join(tmpdir(), 'hookkeeper-kustomize-both-'));
    t.after(() => rm(copy, { recursive: true, force: true }));
    await cp(join(packageRoot(), 'webhook-config'), copy, { recursive: true });
    const overlay = join(copy, 'overlays', 'cert-manager');
    const plain = build(overlay);
    // What `kustomize edit add component ../../components/both` writes.
    const file = join(overlay, 'kustomization.yaml');
    const kustomization = parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, stringify({ ...kustomization, components: ['../../components/both'] }));
    const both = build(overlay);

    const policies = labelled(shippedPolicies());
    assert.deepEqual(both.map(key).sort(), [...plain, ...policies].map(key).sort());
    assert.deepEqual(
      both.filter((d) => policies.some((p) => key(p) === key(d))).sort(byKey),
      policies,
      'the native policies as shipped',
    );
    for (const d of plain) {
      const b = both.find((x) => key(x) === key(d));
      if (!d.kind.endsWith('WebhookConfiguration')) {
        // The component labels what the overlay adds too (cert-manager's Issuers and Certificates) part-of hookkeeper.
        assert.deepEqual(b, labelled([d])[0], `${key(d)} unchanged`);
        continue;
      }
      const webhooks = b?.webhooks ?? [];
      assert.ok(webhooks.length > 0);
      for (const w of webhooks) assert.equal(w.failurePolicy, 'Ignore', `${key(d)} ${w.name ?? ''}`);
      const unset = (x: Doc | undefined): unknown =>
        (x?.webhooks ?? []).map((w) => ({ ...w, failurePolicy: undefined }));
      assert.deepEqual(unset(b), unset(d), `${key(d)}: only failurePolicy changed`);
    }
  },
);
