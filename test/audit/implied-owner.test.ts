// The audit judges a hook written with an empty value as its implied owner's (policy impliedOwners), as the admission
// rules do: KubeadmControlPlane's kcp-cleanup under the Cluster API profile is orphaned when the provider's service
// accounts are gone, and unprotected when nobody can act for the owner the key stands for.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject } from '../../src/core/types.js';
import { runAudit } from '../../src/transports/audit/run.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../src/infrastructure/kube/types.js';
import { capiMachine } from '../fixtures/capi.js';

const PROFILE_TEXT = readFileSync('webhook-config/components/cluster-api/policy.yaml', 'utf8');
const PROFILE = parsePolicy(PROFILE_TEXT, 'cluster-api/policy.yaml');
const KCP_OWNER = 'controlplane.cluster.x-k8s.io/kcp-cleanup';

function lister(pages: Record<string, KubeObject[]>): Lister {
  return {
    async *list(r) {
      const found = pages[resourceName(r)];
      if (!found) throw new CrdNotInstalled(r);
      yield found;
    },
  };
}

const pages = { 'machines.cluster.x-k8s.io': [capiMachine({ name: 'cp-0' })] };
/** Deleting since an hour before the audit's clock, past its one-hour threshold, held at kcp-cleanup. */
const deleting = {
  'machines.cluster.x-k8s.io': [capiMachine({ name: 'cp-0', deletionTimestamp: '2026-12-05T07:00:00Z' })],
};

const audit = (
  policy: Policy,
  extra: { serviceAccountExists?: (namespace: string, name: string) => Promise<boolean>; ownerGrants?: boolean },
  machines: Record<string, KubeObject[]> = pages,
) =>
  runAudit({
    lister: lister({
      ...machines,
      'clusterroles.rbac.authorization.k8s.io': [],
      'clusterrolebindings.rbac.authorization.k8s.io': [],
      'roles.rbac.authorization.k8s.io': [],
      'rolebindings.rbac.authorization.k8s.io': [],
    }),
    policy,
    now: () => new Date('2026-12-05T09:00:00Z'),
    stuckAfterMs: 3_600_000,
    ...extra,
  });

describe('audit: hooks with an implied owner', () => {
  test("orphaned-owner: kcp-cleanup's implied owner acts only through service accounts that are gone", async () => {
    const asked: string[] = [];
    const report = await audit(PROFILE, {
      serviceAccountExists: async (ns, name) => {
        asked.push(`${ns}/${name}`);
        return false;
      },
    });
    assert.deepEqual(asked.sort(), [
      'capi-kubeadm-control-plane-system/capi-kubeadm-control-plane-manager',
      'k0smotron/k0smotron-controller-manager-control-plane',
    ]);
    const orphaned = report.findings.filter((f) => f.rule === 'orphaned-owner');
    assert.deepEqual(
      orphaned.map((f) => [f.object.name, f.hook]),
      [['cp-0', { stage: 'preTerminate', name: 'kcp-cleanup', owner: KCP_OWNER }]],
    );
    assert.match(
      orphaned[0]?.message ?? '',
      /^preTerminate hook "kcp-cleanup" is owned by "controlplane\.cluster\.x-k8s\.io\/kcp-cleanup" \(implied by the policy for its key: the value is empty\), but none of its registered service accounts exists any more/,
    );
    // One that exists: not orphaned.
    const kept = await audit(PROFILE, { serviceAccountExists: async (ns) => ns === 'k0smotron' });
    assert.deepEqual(
      kept.findings.filter((f) => f.rule === 'orphaned-owner'),
      [],
    );
  });

  test('unprotected-owner: an implied owner nobody can act for; a registered one is protected', async () => {
    const unregistered = parsePolicy(
      PROFILE_TEXT.replace(/^ {2}controlplane\.cluster\.x-k8s\.io\/kcp-cleanup:\n(?: {4,}.*\n)+/m, ''),
      'unregistered.yaml',
    );
    assert.equal(Object.hasOwn(unregistered.owners, KCP_OWNER), false);
    const report = await audit(unregistered, { ownerGrants: true });
    const unprotected = report.findings.filter((f) => f.rule === 'unprotected-owner');
    assert.deepEqual(
      unprotected.map((f) => [f.object.name, f.hook?.owner]),
      [['cp-0', KCP_OWNER]],
    );
    const registered = await audit(PROFILE, { ownerGrants: true });
    assert.deepEqual(
      registered.findings.filter((f) => f.rule === 'unprotected-owner'),
      [],
    );
  });

  test("stuck-deletion: the wait is for the implied owner, named as such (the metric's owner label reads it)", async () => {
    const report = await audit(PROFILE, {}, deleting);
    const stuck = report.findings.filter((f) => f.rule === 'stuck-deletion');
    assert.deepEqual(
      stuck.map((f) => [f.object.name, f.hook]),
      [['cp-0', { stage: 'preTerminate', name: 'kcp-cleanup', owner: KCP_OWNER }]],
    );
    assert.match(
      stuck[0]?.message ?? '',
      /preTerminate hook "kcp-cleanup" owned by "controlplane\.cluster\.x-k8s\.io\/kcp-cleanup" \(implied by the policy for its key: the value is empty\) is still there$/,
    );
    assert.match(
      stuck[0]?.fix ?? '',
      /^the deletion waits for "controlplane\.cluster\.x-k8s\.io\/kcp-cleanup" to remove/,
    );
  });
});
