// audit and the Machine API to Cluster API migration: which copy of a migrated Machine is authoritative, in the
// report, in its notes and on each finding about either copy.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { KubeObject } from '../../src/core/types.js';
import { runAudit } from '../../src/transports/audit/run.js';
import { renderAudit } from '../../src/transports/audit/table.js';
import type { ResourceRef } from '../../src/core/resources.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../src/infrastructure/kube/types.js';
import { capiMachine, PRE_DRAIN } from '../fixtures/capi.js';
import { machine } from '../fixtures/openshift.js';

const NOW = new Date('2026-11-21T12:00:00Z');

function lister(pages: Record<string, KubeObject[]>): Lister {
  return {
    async *list(resource: ResourceRef) {
      const found = pages[resourceName(resource)];
      if (!found) throw new CrdNotInstalled(resource);
      yield found;
    },
  };
}

/** A TechPreview Machine API Machine with its migration fields. */
function migrated(name: string, status: string, spec?: string): KubeObject {
  const m = machine({ name, role: 'worker', preDrain: [{ name: 'bad name!', owner: 'team/a' }] });
  return {
    ...m,
    spec: { ...(m['spec'] as object), ...(spec ? { authoritativeAPI: spec } : {}) },
    status: { authoritativeAPI: status },
  };
}

describe('audit: the migration', () => {
  test('each migrated Machine and every finding about either copy name the authoritative side', async () => {
    const twin = capiMachine({
      name: 'worker-a',
      namespace: 'openshift-cluster-api',
      role: 'worker',
      annotations: { [`${PRE_DRAIN}/bad name`]: 'team/a' },
    });
    const report = await runAudit({
      lister: lister({
        'machines.machine.openshift.io': [
          migrated('worker-a', 'ClusterAPI', 'ClusterAPI'),
          migrated('worker-b', 'Migrating', 'ClusterAPI'),
          machine({ name: 'worker-c', role: 'worker', preDrain: [{ name: 'bad name!', owner: 'team/a' }] }),
        ],
        'machines.cluster.x-k8s.io': [twin],
      }),
      policy: DEFAULT_POLICY,
      now: () => NOW,
      stuckAfterMs: 60_000,
    });
    assert.deepEqual(report.migration, [
      { name: 'worker-a', status: 'ClusterAPI', spec: 'ClusterAPI', authoritative: 'ClusterAPI' },
      { name: 'worker-b', status: 'Migrating', spec: 'ClusterAPI', authoritative: 'ClusterAPI' },
    ]);
    assert.deepEqual(
      report.findings.map((f) => [f.object.kind, f.object.namespace, f.object.name, f.authoritativeAPI]),
      [
        ['Machine', 'openshift-machine-api', 'worker-a', 'ClusterAPI'],
        ['Machine', 'openshift-machine-api', 'worker-b', 'ClusterAPI'],
        ['Machine', 'openshift-machine-api', 'worker-c', undefined],
        ['Machine', 'openshift-cluster-api', 'worker-a', 'ClusterAPI'],
      ],
    );
    assert.ok(
      report.notes.includes(
        'migration: 2 Machines in openshift-machine-api name an authoritative API (1 ClusterAPI, 1 Migrating (to ClusterAPI)); a finding about either copy (machine.openshift.io in openshift-machine-api, cluster.x-k8s.io in openshift-cluster-api) names it',
      ),
      report.notes.join('\n'),
    );
    const lines = renderAudit(report, { tty: false }).split('\n');
    const at = lines.findIndex((l) => l.includes('Machine.cluster.x-k8s.io openshift-cluster-api/worker-a'));
    assert.ok(lines.slice(at, at + 3).includes('  authoritative: ClusterAPI'), lines.join('\n'));
    assert.match(renderAudit(report, { tty: true }), /^RESULT +RULE +KIND +NAMESPACE +NAME +AUTHORITATIVE +PATH/);
  });

  test('a cluster without migration fields: no migration section, no column', async () => {
    const report = await runAudit({
      lister: lister({ 'machines.machine.openshift.io': [machine({ preDrain: [{ name: 'bad name!', owner: 'x' }] })] }),
      policy: DEFAULT_POLICY,
      now: () => NOW,
      stuckAfterMs: 60_000,
    });
    assert.equal(report.migration, undefined);
    assert.doesNotMatch(renderAudit(report, { tty: true }), /AUTHORITATIVE/);
  });
});
