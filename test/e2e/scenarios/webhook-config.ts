// Issues 5 and 16: every object of every webhook-config/ overlay (the native one and components/both included), built
// with kustomize, and of charts/hookkeeper in each certificate and admission mode, rendered with helm, is accepted by
// the real API server (server-side apply with dryRun=All and strict field validation, as `kubectl apply --server-side
// --dry-run=server` sends it), without warnings (so the Deployment meets the "restricted" Pod Security level the
// Namespace enforces), and nothing is stored. cert-manager's Issuer and Certificate are checked against
// cert-manager's own CRDs from ../shared/crds when they are there (required under CI=true), else against stand-ins
// (test/fixtures/crds/cert-manager.io_stand-ins.yaml) that check their metadata, kind and scope, not their spec.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { runCerts } from '../../../src/infrastructure/certs/store.js';
import { chartDir, findHelm, helmSkip, helmTemplate, requireHelm, runHelm } from '../../helpers/helm.js';
import { findKustomize, kustomizeBuild, NO_KUSTOMIZE } from '../../helpers/kustomize.js';
import type { ControlPlane } from '../../../testing/control-plane/control-plane.js';
import { certManagerCrdSet, installCrds, readCrds } from '../../../testing/control-plane/crds.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import { parseWarnings } from '../../../testing/control-plane/kube.js';
import { flatHeaders, groupVersionPath } from '../../../testing/control-plane/objects.js';
import { readSettings } from '../harness/settings.js';
import type { Scenario } from '../harness/suite.js';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

interface ApiResource {
  plural: string;
  namespaced: boolean;
}

const OVERLAYS = ['openshift', 'cert-manager', 'self-managed'] as const;
const NAMESPACE = 'hookkeeper';

/** Discovery, as kubectl does it: apiVersion + kind -> resource name and scope. */
async function discover(plane: ControlPlane, apiVersion: string, kind: string): Promise<ApiResource | undefined> {
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
  const res = await rawRequest({
    url: `${plane.server}${groupVersionPath(group, version)}`,
    ca: plane.caPem,
    token: plane.identities.admin.token,
  });
  if (res.status !== 200) return undefined;
  const list = JSON.parse(res.body) as { resources: Array<{ name: string; kind: string; namespaced: boolean }> };
  const found = list.resources.find((r) => r.kind === kind && !r.name.includes('/'));
  return found && { plural: found.name, namespaced: found.namespaced };
}

interface Applied {
  object: string;
  status: number;
  message?: string;
  warnings: string[];
}

/** Server-side apply as the suite's admin, unknown or duplicate fields an error (as kubectl's default); dryRun unless told otherwise. */
async function apply(plane: ControlPlane, m: Manifest, options: { dryRun: boolean }): Promise<Applied> {
  const object = `${m.kind} ${m.metadata.namespace ? `${m.metadata.namespace}/` : ''}${m.metadata.name}`;
  const resource = await discover(plane, m.apiVersion, m.kind);
  if (!resource)
    return { object, status: 0, message: `the API server serves no ${m.kind} in ${m.apiVersion}`, warnings: [] };
  if (resource.namespaced && !m.metadata.namespace)
    return { object, status: 0, message: 'namespaced, but has no metadata.namespace', warnings: [] };
  const [group, version] = m.apiVersion.includes('/')
    ? (m.apiVersion.split('/') as [string, string])
    : ['', m.apiVersion];
  const where = resource.namespaced ? `/namespaces/${m.metadata.namespace}` : '';
  const query = `fieldManager=hookkeeper-e2e&force=true&fieldValidation=Strict${options.dryRun ? '&dryRun=All' : ''}`;
  const res = await rawRequest({
    url: `${plane.server}${groupVersionPath(group, version)}${where}/${resource.plural}/${m.metadata.name}?${query}`,
    method: 'PATCH',
    ca: plane.caPem,
    token: plane.identities.admin.token,
    // JSON is YAML: the apply patch content type takes either.
    body: m,
    contentType: 'application/apply-patch+yaml',
    timeoutMs: 30_000,
  });
  const warnings = parseWarnings(flatHeaders(res.headers)['warning']);
  if (res.status === 200 || res.status === 201) return { object, status: res.status, warnings };
  let message = res.body;
  try {
    message = (JSON.parse(res.body) as { message?: string }).message ?? res.body;
  } catch {
    // not a Status: the body as it came
  }
  return { object, status: res.status, message, warnings };
}

/** The API server's version ("v1.36.5"): the shipped native policies need 1.36 (MutatingAdmissionPolicy v1). */
async function serverVersion(plane: ControlPlane): Promise<{ gitVersion: string; minor: number }> {
  const res = await rawRequest({
    url: `${plane.server}/version`,
    ca: plane.caPem,
    token: plane.identities.admin.token,
  });
  const { gitVersion } = JSON.parse(res.body) as { gitVersion: string };
  return { gitVersion, minor: Number(/^v1\.(\d+)\./.exec(gitVersion)?.[1] ?? 0) };
}

/** Every object applied with dryRun=All must be accepted without warnings, and the main ones must not be stored. */
async function assertDryRunAccepted(plane: ControlPlane, manifests: readonly Manifest[]): Promise<void> {
  const results: Applied[] = [];
  for (const m of manifests) results.push(await apply(plane, m, { dryRun: true }));
  assert.deepEqual(
    results.filter((r) => r.message !== undefined || r.warnings.length > 0),
    [],
  );
  for (const path of [
    '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/hookkeeper',
    `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/hookkeeper`,
  ]) {
    const res = await rawRequest({
      url: `${plane.server}${path}`,
      ca: plane.caPem,
      token: plane.identities.admin.token,
    });
    assert.equal(res.status, 404, `${path} exists`);
  }
}

export const webhookConfigScenarios: Scenario = (env) => {
  const settings = readSettings();
  const certManager = certManagerCrdSet(settings.sharedCrdDir, settings.repoRoot);
  const kustomize = findKustomize();
  const helm = findHelm();

  describe(`install manifests: every object accepted by the API server (server-side dry-run apply; ${certManager.name})`, () => {
    before(async () => {
      const { plane } = env();
      if (certManager.missing && settings.ci)
        assert.fail(`${certManager.missing} (CI=true needs them; set HOOKKEEPER_E2E_SHARED_CRDS)`);
      const crds = await readCrds(certManager.files);
      await installCrds(plane.kubeConfig('admin'), plane.server, plane.caPem, plane.identities.admin.token, crds);
      // The namespace must exist for the namespaced objects' dry runs; created as shipped, so that the Deployment
      // is checked against the Pod Security level its labels enforce.
      const namespace = parse(
        await readFile(join(plane.repoRoot, 'webhook-config', 'base', 'namespace.yaml'), 'utf8'),
      ) as Manifest;
      assert.equal(namespace.metadata.name, NAMESPACE);
      const created = await apply(plane, namespace, { dryRun: false });
      assert.equal(created.message, undefined, created.message);
    });

    describe('webhook-config/ overlays, built with kustomize', { skip: kustomize ? false : NO_KUSTOMIZE }, () => {
      const built = new Map<string, Manifest[]>();
      let copy = '';

      before(async () => {
        const { plane } = env();
        // The self-managed overlay needs `hookkeeper certs` output beside it: build it from a copy.
        copy = await mkdtemp(join(tmpdir(), 'hookkeeper-e2e-webhook-config-'));
        await cp(join(plane.repoRoot, 'webhook-config'), copy, { recursive: true });
        await runCerts({
          out: join(copy, 'overlays', 'self-managed', 'certs'),
          service: 'hookkeeper',
          namespace: NAMESPACE,
          ips: [],
        });
        for (const overlay of OVERLAYS)
          built.set(overlay, kustomizeBuild<Manifest>(kustomize ?? [], join(copy, 'overlays', overlay)));
        built.set('native', kustomizeBuild<Manifest>(kustomize ?? [], join(copy, 'overlays', 'native')));
        // Both: a certificate overlay with components/both, as `kustomize edit add component` leaves it.
        const certManager = join(copy, 'overlays', 'cert-manager', 'kustomization.yaml');
        const kustomization = parse(await readFile(certManager, 'utf8')) as Record<string, unknown>;
        await writeFile(certManager, stringify({ ...kustomization, components: ['../../components/both'] }));
        built.set(
          'cert-manager + components/both',
          kustomizeBuild<Manifest>(kustomize ?? [], join(copy, 'overlays', 'cert-manager')),
        );
      });

      after(async () => {
        if (copy) await rm(copy, { recursive: true, force: true });
      });

      for (const overlay of OVERLAYS) {
        test(`overlays/${overlay}: every object accepted without warnings, nothing stored`, async () => {
          const manifests = built.get(overlay) ?? [];
          assert.ok(manifests.length >= 10, `overlays/${overlay} built ${manifests.length} objects`);
          await assertDryRunAccepted(env().plane, manifests);
        });
      }

      for (const overlay of ['native', 'cert-manager + components/both']) {
        test(`${overlay}: every object, native admission policies included, accepted without warnings, nothing stored`, async (t) => {
          const { gitVersion, minor } = await serverVersion(env().plane);
          if (minor < 36) {
            t.skip(`the shipped native policies are for Kubernetes 1.36 or newer; this API server is ${gitVersion}`);
            return;
          }
          const manifests = built.get(overlay) ?? [];
          assert.ok(
            manifests.some((m) => m.kind === 'MutatingAdmissionPolicy') &&
              manifests.some((m) => m.kind === 'ValidatingAdmissionPolicy'),
            `${overlay} has no native admission policies`,
          );
          await assertDryRunAccepted(env().plane, manifests);
        });
      }
    });

    describe(
      'charts/hookkeeper, rendered with helm template in each certificate mode',
      { skip: helmSkip(helm) },
      () => {
        let certs = '';

        before(async () => {
          certs = await mkdtemp(join(tmpdir(), 'hookkeeper-e2e-helm-'));
          await runCerts({ out: certs, service: 'hookkeeper', namespace: NAMESPACE, ips: [] });
        });

        after(async () => {
          if (certs) await rm(certs, { recursive: true, force: true });
        });

        const modes: Record<(typeof OVERLAYS)[number], () => Promise<string[]>> = {
          // The Namespace object too, as the chart renders it with namespace.create.
          openshift: async () => ['--set', 'certificates.mode=openshift', '--set', 'namespace.create=true'],
          // A policy with defaultHooks of its own: the mutating webhook's policy-free matchCondition, compiled here.
          'cert-manager': async () => [
            '--set',
            'certificates.mode=cert-manager',
            '--set',
            'policy=apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\ndefaultHooks: []',
          ],
          'self-managed': async () => [
            '--set',
            'certificates.mode=self-managed',
            '--set',
            `certificates.selfManaged.caBundle=${(await readFile(join(certs, 'ca.crt'))).toString('base64')}`,
            '--set-file',
            `certificates.selfManaged.tlsCrt=${join(certs, 'tls.crt')}`,
            '--set-file',
            `certificates.selfManaged.tlsKey=${join(certs, 'tls.key')}`,
          ],
        };
        for (const mode of OVERLAYS) {
          test(`certificates.mode=${mode}: every object accepted without warnings, nothing stored`, async () => {
            const { plane } = env();
            const manifests = helmTemplate<Manifest>(requireHelm(helm), chartDir(plane.repoRoot), {
              release: 'hookkeeper',
              namespace: NAMESPACE,
              args: await modes[mode](),
            });
            assert.ok(manifests.length >= 10, `certificates.mode=${mode} rendered ${manifests.length} objects`);
            await assertDryRunAccepted(plane, manifests);
          });
        }

        for (const mode of ['native', 'both']) {
          test(`admission.mode=${mode}, for the API server's version: every object, native admission policies included, accepted without warnings, nothing stored (before 1.36: refused by the chart, saying why)`, async () => {
            const { plane } = env();
            // helm install renders for the cluster's version: so does this test.
            const { gitVersion, minor } = await serverVersion(plane);
            const args = ['--set', `admission.mode=${mode}`, '--kube-version', gitVersion];
            if (minor < 36) {
              const res = runHelm(requireHelm(helm), [
                'template',
                'hookkeeper',
                chartDir(plane.repoRoot),
                '--namespace',
                NAMESPACE,
                ...args,
              ]);
              assert.notEqual(res.status, 0, 'the chart installs MutatingAdmissionPolicy v1 on a cluster before 1.36');
              assert.match(res.stderr, /Kubernetes 1\.36 or newer, and this is v1\.\d+/);
              return;
            }
            const manifests = helmTemplate<Manifest>(requireHelm(helm), chartDir(plane.repoRoot), {
              release: 'hookkeeper',
              namespace: NAMESPACE,
              args,
            });
            assert.ok(
              manifests.some((m) => m.kind === 'MutatingAdmissionPolicy') &&
                manifests.some((m) => m.kind === 'ValidatingAdmissionPolicy'),
              `admission.mode=${mode} rendered no native admission policies`,
            );
            await assertDryRunAccepted(plane, manifests);
          });
        }
      },
    );
  });
};
