// Builds every overlay with a real kustomize when one is installed ($KUSTOMIZE, `kustomize` or `kubectl kustomize`); skips otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCerts } from '../../src/certs/store.js';
import { packageRoot } from '../../src/deploy/render.js';
import { findKustomize, kustomizeBuild, NO_KUSTOMIZE } from '../helpers/kustomize.js';

type Doc = {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  webhooks?: { clientConfig: { caBundle?: string } }[];
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
