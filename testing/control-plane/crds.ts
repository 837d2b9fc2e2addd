// The two CRD sets the scenarios run against (our small test CRDs, and upstream's when ../shared/crds is there),
// each with the report CRDs the audit writes (our trimmed copies, or upstream's), and their installation: create,
// then wait for Established and for discovery to serve the resource.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { createRaw, rawRequest } from './http.js';
import { pollUntil } from './processes.js';

export interface CrdSet {
  /** Short label, used in test names and temp dir names. */
  name: string;
  files: readonly string[];
}

export function ownCrdSet(repoRoot: string): CrdSet {
  const dir = join(repoRoot, 'test', 'e2e', 'crds');
  return {
    name: 'test CRDs',
    files: [
      ...[
        'machine.openshift.io_machines.yaml',
        'machine.openshift.io_machinesets.yaml',
        'cluster.x-k8s.io_machines.yaml',
      ].map((f) => join(dir, f)),
      ...OWN_REPORT_CRD_FILES.map((f) => join(repoRoot, 'test', 'fixtures', f)),
    ],
  };
}

/** The report schemas `audit --output policyreport|openreports` writes, trimmed to what it uses (test/fixtures). */
const OWN_REPORT_CRD_FILES = ['audit-policyreport-crds.yaml', 'audit-openreports-crds.yaml'] as const;

/** The report CRDs as published: OpenReports (openreports/reports-api) and wgpolicyk8s.io (wg-policy-prototypes). */
export const UPSTREAM_REPORT_CRD_FILES = [
  'reports/openreports.io_reports.yaml',
  'reports/openreports.io_clusterreports.yaml',
  'reports/wgpolicyk8s.io_policyreports.yaml',
  'reports/wgpolicyk8s.io_clusterpolicyreports.yaml',
] as const;

/**
 * OpenShift's -Default CRDs and Cluster API v1.10.10's (which stores v1beta1, the version the scenarios write), Cluster
 * API's Cluster (main: v1beta1 and v1beta2 served, no conversion webhook, so either is written as is; the upgrade
 * hooks are annotations), and the report CRDs.
 */
export const UPSTREAM_CRD_FILES = [
  '0000_10_machine-api_01_machines-Default.crd.yaml',
  '0000_10_machine-api_01_machinesets-Default.crd.yaml',
  'cluster-api-v1.10.10/cluster.x-k8s.io_machines.yaml',
  'cluster-api-v1.10.10/cluster.x-k8s.io_machinesets.yaml',
  'cluster.x-k8s.io_clusters.yaml',
  ...UPSTREAM_REPORT_CRD_FILES,
] as const;

/** The upstream set, or why it cannot be used. */
export function upstreamCrdSet(sharedCrdDir: string): CrdSet | { missing: string } {
  const files = UPSTREAM_CRD_FILES.map((f) => join(sharedCrdDir, f));
  const absent = files.filter((f) => !existsSync(f));
  if (absent.length > 0) return { missing: `upstream CRDs not found: ${absent.join(', ')}` };
  return { name: 'upstream CRDs', files };
}

export async function readCrds(files: readonly string[]): Promise<V1CustomResourceDefinition[]> {
  const out: V1CustomResourceDefinition[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(file, 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
      const value = doc.toJS() as V1CustomResourceDefinition | null;
      if (value?.kind === 'CustomResourceDefinition') out.push(value);
    }
  }
  return out;
}

export async function installCrds(
  admin: KubeConfig,
  server: string,
  caPem: string,
  token: string,
  crds: readonly V1CustomResourceDefinition[],
): Promise<void> {
  // POSTed as read: the typed API would serialize through its models, which silently drop the JSON-schema keys
  // spelled with dashes (x-kubernetes-preserve-unknown-fields, x-kubernetes-list-type, ...).
  for (const crd of crds)
    await createRaw(server, caPem, token, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  const api = admin.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    await pollUntil(`CRD ${name} Established`, 30_000, async () => {
      const got = await api.readCustomResourceDefinition({ name });
      return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
    // Established can come before the resource is in discovery; CRs written in between get a 404.
    for (const version of crd.spec.versions.filter((v) => v.served)) {
      await pollUntil(`${crd.spec.names.plural}.${crd.spec.group}/${version.name} in discovery`, 30_000, async () => {
        const res = await rawRequest({ url: `${server}/apis/${crd.spec.group}/${version.name}`, ca: caPem, token });
        if (res.status !== 200) return undefined;
        const list = JSON.parse(res.body) as { resources?: Array<{ name: string }> };
        return list.resources?.some((r) => r.name === crd.spec.names.plural) ? true : undefined;
      });
    }
  }
}

/** cert-manager's own Issuer and Certificate CRDs in ../shared/crds (strict schemas), used when present. */
export const CERT_MANAGER_CRD_FILES = [
  'cert-manager/cert-manager.io_issuers.yaml',
  'cert-manager/cert-manager.io_certificates.yaml',
] as const;

/**
 * The cert-manager CRDs to check the cert-manager objects against: upstream's when the shared copies are there, else
 * the repo's stand-ins (test/fixtures/crds), which check metadata, kind and scope only; `missing` says why upstream's
 * could not be used (the caller fails under CI=true).
 */
export function certManagerCrdSet(sharedCrdDir: string, repoRoot: string): CrdSet & { missing?: string } {
  const files = CERT_MANAGER_CRD_FILES.map((f) => join(sharedCrdDir, f));
  const absent = files.filter((f) => !existsSync(f));
  if (absent.length === 0) return { name: 'upstream cert-manager CRDs', files };
  return {
    name: 'stand-in cert-manager CRDs',
    files: [join(repoRoot, 'test', 'fixtures', 'crds', 'cert-manager.io_stand-ins.yaml')],
    missing: `cert-manager CRDs not found: ${absent.join(', ')}`,
  };
}
