// Measures `hookkeeper validate` on 10,000 Machine documents (issue 4: "10,000 documents in a few seconds"):
// parse, UPDATE matching against an old copy, mutate + validate, CRD schema check, text rendering. Clean
// documents cost least; each document with a finding also pays a positional parse for the finding's line.
// Run: node --import tsx bench/validate.ts [count]
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import YAML from 'yaml';
import { DEFAULT_POLICY } from '../src/config/defaults.js';
import { CrdSet } from '../src/validate/crd.js';
import { validateInputs, DEFAULT_USER } from '../src/validate/run.js';
import { renderText } from '../src/validate/text.js';

const count = Number(process.argv[2] ?? 10_000);
const CRD = new URL('../../shared/crds/0000_10_machine-api_01_machines-Default.crd.yaml', import.meta.url);

/** hooks: the etcd hook, plus (one in ten documents) a hook whose name cannot migrate to Cluster API (a warning). */
function manifest(i: number, hooks: boolean): string {
  const role = i % 10 < 3 ? 'master' : 'worker';
  return YAML.stringify({
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name: `ci-ln-7x2k9-${role}-${i}`,
      namespace: 'openshift-machine-api',
      labels: { 'machine.openshift.io/cluster-api-cluster': 'ci-ln-7x2k9', 'machine.openshift.io/cluster-api-machine-role': role, 'machine.openshift.io/cluster-api-machine-type': role },
    },
    spec: {
      lifecycleHooks: hooks ? {
        preDrain: [{ name: 'EtcdQuorumOperator', owner: 'clusteroperator/etcd' }],
        preTerminate: [{ name: i % 10 === 0 ? 'example.com/Backup' : 'Backup', owner: 'backup-controller' }],
      } : {},
      providerSpec: { value: { apiVersion: 'machine.openshift.io/v1beta1', kind: 'AWSMachineProviderConfig', instanceType: 'm6i.xlarge', placement: { availabilityZone: 'us-east-1a', region: 'us-east-1' } } },
    },
  });
}

const text = Array.from({ length: count }, (_, i) => manifest(i, true)).join('---\n');
// The old revision: every other object had no hooks, so the new manifests add them (UPDATE, allowed).
const old = Array.from({ length: count }, (_, i) => manifest(i, i % 2 === 0)).join('---\n');
const crds = existsSync(CRD) ? CrdSet.parse([{ file: 'machines.crd.yaml', text: await readFile(CRD, 'utf8') }]) : undefined;

for (const [label, oldFiles, withCrd] of [['CREATE', undefined, false], ['UPDATE (--old)', [{ file: 'old.yaml', text: old }], false], ['UPDATE + --crd', [{ file: 'old.yaml', text: old }], true]] as const) {
  if (withCrd && !crds) {
    console.log(`${label}: skipped (no ../shared/crds)`);
    continue;
  }
  const started = performance.now();
  const report = validateInputs([{ file: 'machines.yaml', text }], oldFiles, { policy: DEFAULT_POLICY, userInfo: DEFAULT_USER, ...(withCrd && crds ? { crds } : {}) });
  renderText(report, { showPatches: false });
  const ms = performance.now() - started;
  const s = report.summary;
  console.log(`${label}: ${count} documents (${(text.length / 1e6).toFixed(1)} MB) in ${(ms / 1000).toFixed(2)} s: ${s.allowed} allowed, ${s.denied} denied, ${s.patched} patched, ${s.warnings} warnings`);
}
