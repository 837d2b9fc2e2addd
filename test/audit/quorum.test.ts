// The audit's quorum-at-risk finding: control-plane Machines of one cluster deleting without their quorum hook, judged
// with the cluster's Machines from the audit's own lists (every page of the resource), in the report's formats, and
// the per-cluster count the metrics export.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject } from '../../src/core/types.js';
import { policyReports } from '../../src/transports/audit/policyreport.js';
import { runAudit } from '../../src/transports/audit/run.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../src/infrastructure/kube/types.js';
import { capiMachine, KCP_CLEANUP } from '../fixtures/capi.js';
import { ETCD, machine } from '../fixtures/openshift.js';

const NOW = new Date('2026-12-05T09:00:00Z');
const DELETED = '2026-12-05T08:55:00Z';

function lister(pages: Record<string, KubeObject[][]>): Lister {
  return {
    async *list(r) {
      const found = pages[resourceName(r)];
      if (!found) throw new CrdNotInstalled(r);
      for (const page of found) yield page;
    },
  };
}

const audit = (pages: Record<string, KubeObject[][]>, policy: Policy = DEFAULT_POLICY) =>
  runAudit({ lister: lister(pages), policy, now: () => NOW, stuckAfterMs: 3_600_000 });

const quorumFindings = (report: Awaited<ReturnType<typeof audit>>) =>
  report.findings.filter((f) => f.rule === 'quorum-at-risk');

describe('audit: quorum-at-risk', () => {
  test('two control-plane Machines deleting without the etcd hook, on different pages, are each a finding', async () => {
    const report = await audit({
      'machines.machine.openshift.io': [
        [
          machine({ name: 'master-0', deletionTimestamp: DELETED }),
          machine({ name: 'master-1', preDrain: [ETCD], deletionTimestamp: DELETED }),
          machine({ name: 'worker-0', role: 'worker', deletionTimestamp: DELETED }),
        ],
        [machine({ name: 'master-2', deletionTimestamp: DELETED }), machine({ name: 'master-3', preDrain: [ETCD] })],
      ],
    });
    const found = quorumFindings(report);
    assert.deepEqual(
      found.map((f) => [f.object.name, f.result, f.path]),
      [
        ['master-0', 'fail', 'spec.lifecycleHooks.preDrain'],
        ['master-2', 'fail', 'spec.lifecycleHooks.preDrain'],
      ],
    );
    assert.equal(
      found[0]?.message,
      'control-plane Machines master-0 and master-2 of cluster ci-ln-7x2k9 are deleting without quorum protection (EtcdQuorumOperator): their etcd members can leave together and lose quorum',
    );
    assert.match(
      found[0]?.fix ?? '',
      /^a deleting Machine takes no new hook, so nothing holds these deletions: check etcd's members and health now, remove/,
    );
    assert.deepEqual(report.quorum, [
      {
        quorum: 'etcd-quorum',
        namespace: 'openshift-machine-api',
        cluster: 'ci-ln-7x2k9',
        machines: ['master-0', 'master-2'],
      },
    ]);
    // The report objects carry it like the other findings of the cluster's state.
    const results = policyReports(report).flatMap((r) => (r['results'] as Array<Record<string, unknown>>) ?? []);
    const mine = results.filter((r) => r['rule'] === 'quorum-at-risk');
    assert.equal(mine.length, 2);
    assert.deepEqual(new Set(mine.map((r) => [r['result'], r['severity']].join(' '))), new Set(['fail high']));
  });

  test('one such deletion is no finding, but the report counts it for its cluster', async () => {
    const report = await audit({
      'machines.machine.openshift.io': [
        [
          machine({ name: 'master-0', deletionTimestamp: DELETED }),
          machine({ name: 'master-1', preDrain: [ETCD], deletionTimestamp: DELETED }),
          machine({ name: 'master-2', preDrain: [ETCD] }),
          machine({ name: 'master-9', namespace: 'elsewhere', deletionTimestamp: DELETED }),
        ],
      ],
    });
    assert.deepEqual(quorumFindings(report), []);
    assert.deepEqual(report.quorum, [
      { quorum: 'etcd-quorum', namespace: 'openshift-machine-api', cluster: 'ci-ln-7x2k9', machines: ['master-0'] },
    ]);
  });

  test('a healthy control plane: no finding, no count', async () => {
    const report = await audit({
      'machines.machine.openshift.io': [
        [machine({ name: 'master-0', preDrain: [ETCD] }), machine({ name: 'master-1' })],
      ],
    });
    assert.deepEqual(quorumFindings(report), []);
    assert.equal(report.quorum, undefined);
  });

  test('the Cluster API profile: kcp-cleanup gone from two deleting control-plane Machines; warn under warn', async () => {
    const profile = parsePolicy(
      readFileSync('webhook-config/components/cluster-api/policy.yaml', 'utf8'),
      'cluster-api/policy.yaml',
    );
    const pages = {
      'machines.cluster.x-k8s.io': [
        [
          capiMachine({ name: 'cp-a', withoutKcpAnnotations: true, deletionTimestamp: DELETED }),
          capiMachine({ name: 'cp-b', withoutKcpAnnotations: true, deletionTimestamp: DELETED }),
          capiMachine({ name: 'cp-c', annotations: { [KCP_CLEANUP]: '' }, deletionTimestamp: DELETED }),
        ],
      ],
    };
    const report = await audit(pages, profile);
    const found = quorumFindings(report);
    assert.deepEqual(
      found.map((f) => [f.object.name, f.result, f.path]),
      [
        ['cp-a', 'fail', 'metadata.annotations'],
        ['cp-b', 'fail', 'metadata.annotations'],
      ],
    );
    assert.match(
      found[0]?.message ?? '',
      /^control-plane Machines cp-a and cp-b of cluster prod-eu1 are deleting without quorum protection \(kcp-cleanup or rke2-cleanup\)/,
    );
    assert.match(found[0]?.fix ?? '', /pause all but one of them \(annotation cluster\.x-k8s\.io\/paused\)/);
    const warned = await audit(pages, {
      ...profile,
      enforcement: { ...profile.enforcement, 'quorum-at-risk': 'warn' },
    });
    assert.deepEqual(
      quorumFindings(warned).map((f) => f.result),
      ['warn', 'warn'],
    );
  });
});
