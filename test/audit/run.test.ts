// runAudit with an injected lister: engine findings, stuck deletions (injected clock), orphaned owners (injected
// service account lookup), paging and progress, and CRDs that are not installed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { Policy } from '../../src/core/policy.js';
import type { KubeObject } from '../../src/core/types.js';
import { runAudit, type AuditDeps, type AuditProgress } from '../../src/transports/audit/run.js';
import { AppError } from '../../src/errors.js';
import type { ResourceRef } from '../../src/core/resources.js';
import { CrdNotInstalled, resourceName, type Lister } from '../../src/infrastructure/kube/types.js';
import { BEFORE_UPGRADE, capiCluster, capiMachine, PRE_DRAIN } from '../fixtures/capi.js';
import { ETCD, machine } from '../fixtures/openshift.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const MIN = 60_000;

/** Pages per resource name (machines.machine.openshift.io); resources not listed are not installed. */
function fakeLister(
  pages: Record<string, KubeObject[][]>,
  calls: Array<{ resource: string; namespace?: string }> = [],
): Lister {
  return {
    async *list(resource: ResourceRef, namespace?: string) {
      const name = resourceName(resource);
      calls.push({ resource: name, ...(namespace === undefined ? {} : { namespace }) });
      const found = pages[name];
      if (!found) throw new CrdNotInstalled(resource);
      for (const page of found) yield page;
    },
  };
}

function deps(lister: Lister, extra: Partial<AuditDeps> = {}): AuditDeps {
  return { lister, policy: DEFAULT_POLICY, now: () => NOW, stuckAfterMs: 30 * MIN, ...extra };
}

function machineSet(hooks: Array<{ name: string; owner: string }>): KubeObject {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: {
      name: 'ci-ln-7x2k9-worker-us-east-1a',
      namespace: 'openshift-machine-api',
      uid: 'a3f1c9e2-0b7d-4e55-8c21-6d9f0e4b7a13',
      resourceVersion: '51234',
    },
    spec: { replicas: 2, template: { metadata: {}, spec: { lifecycleHooks: { preDrain: hooks } } } },
  };
}

const deleting = (minutesAgo: number): string => new Date(NOW.getTime() - minutesAgo * MIN).toISOString();

describe('runAudit', () => {
  test('a clean cluster: every object evaluated, page by page, with progress; uninstalled kinds noted', async () => {
    const progress: AuditProgress[] = [];
    const pages = [
      [machine({ name: 'master-0', preDrain: [ETCD] }), machine({ name: 'worker-0', role: 'worker' })],
      [machine({ name: 'master-1', preDrain: [ETCD] })],
    ];
    const report = await runAudit(
      deps(
        fakeLister({ 'machines.machine.openshift.io': pages, 'machinesets.machine.openshift.io': [[machineSet([])]] }),
        { onProgress: (p) => progress.push(p) },
      ),
    );
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.summary, { objects: 4, passed: 4, fail: 0, warn: 0, stuckDeletions: 0, orphanedHooks: 0 });
    assert.deepEqual(progress, [
      { resource: 'machines.machine.openshift.io', objects: 2, total: 2 },
      { resource: 'machines.machine.openshift.io', objects: 3, total: 3 },
      { resource: 'machinesets.machine.openshift.io', objects: 1, total: 4 },
    ]);
    assert.deepEqual(
      report.resources.map((r) => [r.resource, r.version, r.status, r.objects]),
      [
        ['machines.machine.openshift.io', 'v1beta1', 'audited', 3],
        ['machinesets.machine.openshift.io', 'v1beta1', 'audited', 1],
        ['controlplanemachinesets.machine.openshift.io', 'v1', 'not-installed', 0],
        ['machines.cluster.x-k8s.io', 'v1beta1', 'not-installed', 0],
        ['machinesets.cluster.x-k8s.io', 'v1beta1', 'not-installed', 0],
        ['machinedeployments.cluster.x-k8s.io', 'v1beta1', 'not-installed', 0],
        ['clusters.cluster.x-k8s.io', 'v1beta1', 'not-installed', 0],
      ],
    );
    assert.ok(
      report.notes.includes(
        'controlplanemachinesets.machine.openshift.io/v1 is not served by this cluster (CRD not installed): skipped',
      ),
    );
    assert.equal(report.startedAt, NOW.toISOString());
    assert.equal(report.stuckAfterSeconds, 1800);
  });

  test('stored objects go through the engine in audit mode: a control plane without the etcd hook, a bad template hook', async () => {
    const policy: Policy = { ...DEFAULT_POLICY, enforcement: { ...DEFAULT_POLICY.enforcement, 'hook-naming': 'warn' } };
    const report = await runAudit(
      deps(
        fakeLister({
          'machines.machine.openshift.io': [[machine({ name: 'master-2' })]],
          'machinesets.machine.openshift.io': [[machineSet([{ name: 'x', owner: 'ops-team' }])]],
        }),
        { policy },
      ),
    );
    assert.deepEqual(
      report.findings.map((f) => [f.rule, f.result, f.object.kind, f.object.name, f.path]),
      [
        ['default-hooks', 'fail', 'Machine', 'master-2', 'spec.lifecycleHooks.preDrain'],
        [
          'hook-naming',
          'warn',
          'MachineSet',
          'ci-ln-7x2k9-worker-us-east-1a',
          'spec.template.spec.lifecycleHooks.preDrain[0].name',
        ],
      ],
    );
    assert.deepEqual(report.findings[0]?.object, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      namespace: 'openshift-machine-api',
      name: 'master-2',
      uid: '7c2f0a6e-3b1d-4c8e-9f5a-2d6b8e1c4a90',
    });
    assert.deepEqual([report.summary.fail, report.summary.warn, report.summary.passed], [1, 1, 0]);
  });

  test("Clusters are listed and judged: a misnamed upgrade hook and a reserved name's squat; a long deletion is no stuck one", async () => {
    const report = await runAudit(
      deps(
        fakeLister({
          'clusters.cluster.x-k8s.io': [
            [
              capiCluster(
                { [`${BEFORE_UPGRADE}-addons`]: 'team-x', [`${BEFORE_UPGRADE}/EtcdQuorumOperator`]: 'team-x' },
                // Deleting for hours with hooks: an upgrade hook holds no deletion, so stuck-deletion says nothing.
                { deletionTimestamp: '2026-11-21T08:00:00Z' },
              ),
            ],
          ],
        }),
      ),
    );
    assert.deepEqual(
      report.findings.map((f) => [f.rule, f.result, f.object.kind, f.path]),
      [
        ['hook-naming', 'fail', 'Cluster', 'metadata.annotations'],
        ['single-owner', 'fail', 'Cluster', `metadata.annotations[${BEFORE_UPGRADE}/EtcdQuorumOperator]`],
      ],
    );
    assert.equal(report.summary.stuckDeletions, 0);
  });

  test('stuck deletions: waiting on hooks longer than stuck-after; which hook, which owner, how long', async () => {
    const backup = { name: 'Backup', owner: 'backup-controller' };
    const report = await runAudit(
      deps(
        fakeLister({
          'machines.machine.openshift.io': [
            [
              machine({ name: 'stuck', preDrain: [ETCD], preTerminate: [backup], deletionTimestamp: deleting(125) }),
              machine({ name: 'recent', preDrain: [ETCD], deletionTimestamp: deleting(10) }),
              machine({ name: 'no-hooks', role: 'worker', deletionTimestamp: deleting(600) }),
            ],
          ],
          'machines.cluster.x-k8s.io': [
            [
              capiMachine({
                name: 'capi-stuck',
                role: 'worker',
                annotations: { [`${PRE_DRAIN}/drain-guard`]: 'team-a' },
                deletionTimestamp: deleting(45),
              }),
            ],
          ],
        }),
      ),
    );
    const stuck = report.findings.filter((f) => f.rule === 'stuck-deletion');
    // The hooks of the stage it waits at: "stuck"'s pre-terminate hook holds nothing until the drain is over.
    assert.deepEqual(
      stuck.map((f) => [f.object.name, f.hook?.stage, f.hook?.name, f.hook?.owner, f.deletingForSeconds, f.path]),
      [
        ['stuck', 'preDrain', 'EtcdQuorumOperator', 'clusteroperator/etcd', 7500, 'spec.lifecycleHooks.preDrain[0]'],
        ['capi-stuck', 'preDrain', 'drain-guard', 'team-a', 2700, `metadata.annotations[${PRE_DRAIN}/drain-guard]`],
      ],
    );
    assert.equal(
      stuck[0]?.message,
      `Machine openshift-machine-api/stuck has been deleting for 2h5m (since ${deleting(125)}): preDrain hook "EtcdQuorumOperator" owned by "clusteroperator/etcd" is still there`,
    );
    assert.match(
      stuck[0]?.fix ?? '',
      /remove the hook as a break-glass identity \(break-glass: group system:masters\)/,
    );
    assert.equal(stuck[0]?.result, 'fail');
    assert.equal(report.summary.stuckDeletions, 2);
    const later = await runAudit(
      deps(
        fakeLister({
          'machines.machine.openshift.io': [
            [machine({ name: 'recent', preDrain: [ETCD], deletionTimestamp: deleting(10) })],
          ],
        }),
        { stuckAfterMs: 5 * MIN },
      ),
    );
    assert.equal(later.summary.stuckDeletions, 1);
  });

  test('a wait measured from where the Machine records its start, not from the deletion', async () => {
    const TERM = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io';
    // Cluster API v1.14: drained for hours, then waiting on a pre-terminate hook since waitForPreTerminateHookStartTime.
    const capi = (name: string, waitingMinutes: number, reason = 'WaitingForPreTerminateHook'): KubeObject => ({
      ...capiMachine({
        name,
        version: 'v1beta2',
        role: 'worker',
        annotations: { [`${TERM}/backup`]: 'team-b' },
        deletionTimestamp: deleting(180),
      }),
      status: {
        deletion: {
          nodeDrainStartTime: deleting(179),
          waitForPreTerminateHookStartTime: deleting(waitingMinutes),
        },
        conditions: [{ type: 'Deleting', status: 'True', reason, lastTransitionTime: deleting(waitingMinutes) }],
      },
    });
    // The Machine API: Drained True since the drain ended; its pre-terminate hooks hold what follows.
    const mapi = (name: string, drainedMinutes: number): KubeObject => ({
      ...machine({ name, preTerminate: [{ name: 'Backup', owner: 'team/backup' }], deletionTimestamp: deleting(180) }),
      status: {
        conditions: [{ type: 'Drained', status: 'True', lastTransitionTime: deleting(drainedMinutes) }],
      },
    });
    const report = await runAudit(
      deps(
        fakeLister({
          'machines.machine.openshift.io': [[mapi('mapi-fresh', 5), mapi('mapi-stuck', 45)]],
          'machines.cluster.x-k8s.io': [
            [
              capi('capi-fresh', 2),
              capi('capi-stuck', 40),
              // Its controller says it is draining: the pre-terminate hook holds nothing yet.
              capi('capi-draining', 170, 'DrainingNode'),
            ],
          ],
        }),
      ),
    );
    const stuck = report.findings.filter((f) => f.rule === 'stuck-deletion');
    assert.deepEqual(
      stuck.map((f) => [f.object.name, f.deletingForSeconds, f.waitingForSeconds, f.waitingSinceFrom]),
      [
        ['mapi-stuck', 10800, 2700, 'status.conditions[type=Drained].lastTransitionTime'],
        ['capi-stuck', 10800, 2400, 'status.deletion.waitForPreTerminateHookStartTime'],
      ],
    );
    assert.equal(
      stuck[1]?.message,
      `Machine default/capi-stuck has waited at preTerminate for 40m (since ${deleting(40)}, status.deletion.waitForPreTerminateHookStartTime; deleting for 3h): preTerminate hook "backup" owned by "team-b" is still there`,
    );
    assert.equal(report.summary.stuckDeletions, 2);
  });

  test('orphaned owners: every registered service account of the owner is gone; lookups cached; failed lookups noted', async () => {
    const looked: string[] = [];
    const pages = {
      'machines.machine.openshift.io': [
        [
          machine({ name: 'master-0', preDrain: [ETCD] }),
          machine({ name: 'master-1', preDrain: [ETCD] }),
          machine({ name: 'w', role: 'worker', preDrain: [{ name: 'Other', owner: 'unregistered' }] }),
        ],
      ],
    };
    const gone = await runAudit(
      deps(fakeLister(pages), {
        serviceAccountExists: async (ns, name) => {
          looked.push(`${ns}/${name}`);
          return false;
        },
      }),
    );
    const orphans = gone.findings.filter((f) => f.rule === 'orphaned-owner');
    assert.deepEqual(
      orphans.map((f) => [f.object.name, f.hook?.name, f.path]),
      [
        ['master-0', 'EtcdQuorumOperator', 'spec.lifecycleHooks.preDrain[0]'],
        ['master-1', 'EtcdQuorumOperator', 'spec.lifecycleHooks.preDrain[0]'],
      ],
    );
    assert.equal(
      orphans[0]?.message,
      'preDrain hook "EtcdQuorumOperator" is owned by "clusteroperator/etcd", but none of its registered service accounts exists any more: system:serviceaccount:openshift-etcd-operator:etcd-operator',
    );
    assert.deepEqual(looked, ['openshift-etcd-operator/etcd-operator']);
    assert.equal(gone.summary.orphanedHooks, 2);

    const present = await runAudit(deps(fakeLister(pages), { serviceAccountExists: async () => true }));
    assert.equal(present.summary.orphanedHooks, 0);
    const failing = await runAudit(
      deps(fakeLister(pages), {
        serviceAccountExists: async () => {
          throw new AppError('CLUSTER', 'forbidden (403)');
        },
      }),
    );
    assert.equal(failing.summary.orphanedHooks, 0);
    assert.ok(
      failing.notes.includes(
        'cannot check service account openshift-etcd-operator/etcd-operator, so hooks of its owner were not checked for orphans: forbidden (403)',
      ),
    );
    // An owner that users or groups also act for is never orphaned by a missing service account.
    const withUsers: Policy = {
      ...DEFAULT_POLICY,
      owners: {
        'clusteroperator/etcd': {
          users: ['etcd-admin'],
          groups: [],
          serviceAccounts: [{ namespace: 'openshift-etcd-operator', name: 'etcd-operator' }],
        },
      },
    };
    assert.equal(
      (await runAudit(deps(fakeLister(pages), { policy: withUsers, serviceAccountExists: async () => false }))).summary
        .orphanedHooks,
      0,
    );
  });

  test('one namespace: passed to the lister; passes recorded when asked', async () => {
    const calls: Array<{ resource: string; namespace?: string }> = [];
    const report = await runAudit(
      deps(fakeLister({ 'machines.machine.openshift.io': [[machine({ preDrain: [ETCD] })]] }, calls), {
        namespace: 'openshift-machine-api',
        recordPasses: true,
      }),
    );
    assert.ok(calls.every((c) => c.namespace === 'openshift-machine-api'));
    assert.equal(calls.length, 7);
    assert.equal(report.namespace, 'openshift-machine-api');
    assert.deepEqual(
      report.passed?.map((p) => p.name),
      ['ci-ln-7x2k9-master-0'],
    );
  });

  test("every resource's first page is asked for before the first resource is audited", async () => {
    const started: string[] = [];
    let allStarted = (): void => undefined;
    const everyone = new Promise<void>((resolve) => {
      allStarted = resolve;
    });
    const lister: Lister = {
      async *list(resource: ResourceRef) {
        started.push(resourceName(resource));
        if (started.length === 7) allStarted();
        // The first resource answers only once every other one has been asked: a one-after-another audit would wait here.
        if (resource.plural === 'machines' && resource.group === 'machine.openshift.io') {
          const late = new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('the other resources were not asked for')), 1000),
          );
          await Promise.race([everyone, late]);
          yield [machine({ name: 'master-0', preDrain: [ETCD] })];
          return;
        }
        throw new CrdNotInstalled(resource);
      },
    };
    const report = await runAudit(deps(lister));
    assert.equal(report.summary.objects, 1);
    assert.equal(started.length, 7);
  });

  test("a failure ends the audit and every other resource's listing with it", async () => {
    const closed: string[] = [];
    const lister: Lister = {
      async *list(resource: ResourceRef) {
        const name = resourceName(resource);
        try {
          yield [machine({ name: `${resource.plural}-0` })];
          if (name === 'machines.machine.openshift.io')
            throw new AppError('CLUSTER', 'cannot list machines.machine.openshift.io: forbidden (403)');
          yield [machine({ name: `${resource.plural}-1` })];
        } finally {
          closed.push(name);
        }
      },
    };
    await assert.rejects(runAudit(deps(lister)), /forbidden \(403\)/);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(closed.sort(), [
      'clusters.cluster.x-k8s.io',
      'controlplanemachinesets.machine.openshift.io',
      'machinedeployments.cluster.x-k8s.io',
      'machines.cluster.x-k8s.io',
      'machines.machine.openshift.io',
      'machinesets.cluster.x-k8s.io',
      'machinesets.machine.openshift.io',
    ]);
  });

  test('no audited CRD installed at all -> cluster error "CRD not installed"; other failures propagate', async () => {
    await assert.rejects(
      runAudit(deps(fakeLister({}))),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'CLUSTER' &&
        /^CRD not installed: this cluster serves none of machines\.machine\.openshift\.io\/v1beta1, /.test(err.message),
    );
    const forbidden: Lister = {
      list: () => {
        throw new AppError('CLUSTER', 'cannot list machines.machine.openshift.io: forbidden (403)');
      },
    };
    await assert.rejects(runAudit(deps(forbidden)), /forbidden \(403\)/);
  });
});

describe('runAudit: hook-owner grants (ownerGrants)', () => {
  const BACKUP = { name: 'BackupFileSystem', owner: 'my-backup-controller' };
  const STORAGE = { name: 'storage.example.com/Migrate', owner: 'team/storage' };
  const grant = (names: string[]) => [
    { apiGroups: ['hookkeeper.io'], resources: ['hookowners'], verbs: ['remove'], resourceNames: names },
  ];
  const rbacPages = (): Record<string, KubeObject[][]> => ({
    'clusterroles.rbac.authorization.k8s.io': [
      [
        { metadata: { name: 'storage-owner' }, rules: grant(['team/storage']) },
        { metadata: { name: 'cluster-admin' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
      ],
    ],
    'roles.rbac.authorization.k8s.io': [[]],
    'clusterrolebindings.rbac.authorization.k8s.io': [
      [
        {
          metadata: { name: 'storage-owner' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'storage-owner' },
          subjects: [{ kind: 'User', name: 'bob' }],
        },
        {
          metadata: { name: 'cluster-admin' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'Group', name: 'system:masters' }],
        },
      ],
    ],
    'rolebindings.rbac.authorization.k8s.io': [[]],
  });
  const machines = [[machine({ name: 'master-0', preDrain: [ETCD, BACKUP, STORAGE] })]];

  test('unprotected-owner judges from the listed grants; each audited owner is listed with who may act', async () => {
    const report = await runAudit(
      deps(fakeLister({ ...rbacPages(), 'machines.machine.openshift.io': machines }), { ownerGrants: true }),
    );
    assert.deepEqual(
      report.findings.filter((f) => f.rule === 'unprotected-owner').map((f) => f.hook?.owner),
      ['my-backup-controller'],
    );
    assert.deepEqual(
      report.notes.filter((n) => n.startsWith('hook owner ')),
      [
        'hook owner "clusteroperator/etcd": RBAC lets act for it: no grant names it; and 1 subject(s) granted every owner',
        'hook owner "my-backup-controller": RBAC lets act for it: no grant names it; and 1 subject(s) granted every owner',
        'hook owner "team/storage": RBAC lets act for it: User bob; and 1 subject(s) granted every owner',
      ],
    );
  });

  test("a stuck Machine's findings carry the explanation `hookkeeper explain` gives: stage, protection, who may act", async () => {
    const stuck = machine({ name: 'master-0', preDrain: [ETCD, STORAGE], deletionTimestamp: deleting(90) });
    const report = await runAudit(
      deps(fakeLister({ ...rbacPages(), 'machines.machine.openshift.io': [[stuck]] }), { ownerGrants: true }),
    );
    const found = report.findings.filter((f) => f.rule === 'stuck-deletion');
    assert.equal(found.length, 2);
    const [etcd, storage] = found.map((f) => f.explanation);
    assert.equal(etcd?.waitingAt?.step, 'preDrain');
    assert.equal(etcd?.waitingAt?.evidence.basis, 'derived');
    assert.equal(etcd?.explain, 'hookkeeper explain machines.machine.openshift.io/master-0 -n openshift-machine-api');
    assert.deepEqual(etcd?.hook.protection.by, ['registry']);
    assert.deepEqual(storage?.hook.protection.by, ['rbac']);
    assert.deepEqual(
      storage?.hook.removers.map((r) => `${r.via} ${r.kind} ${r.name}`),
      ['rbac User bob', 'break-glass Group system:masters'],
    );
    assert.match(storage?.hook.nextStep.command ?? '', /^kubectl patch machines\.machine\.openshift\.io\/master-0 /);
  });

  test('the identities holding wildcard rights over hook owners are listed by name, with the binding and role', async () => {
    const pages = rbacPages();
    pages['roles.rbac.authorization.k8s.io'] = [
      [
        {
          metadata: { name: 'everything', namespace: 'openshift-machine-api' },
          rules: [{ apiGroups: ['hookkeeper.io'], resources: ['*'], verbs: ['*'] }],
        },
      ],
    ];
    pages['rolebindings.rbac.authorization.k8s.io'] = [
      [
        {
          metadata: { name: 'ops-everything', namespace: 'openshift-machine-api' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'everything' },
          subjects: [{ kind: 'ServiceAccount', name: 'ops', namespace: 'tools' }],
        },
      ],
    ];
    const report = await runAudit(
      deps(fakeLister({ ...pages, 'machines.machine.openshift.io': machines }), { ownerGrants: true }),
    );
    assert.deepEqual(
      report.notes.filter((n) => n.startsWith('wildcard ')),
      [
        'wildcard RBAC rights over hook owners (not ownership: their removals are refused under wildcardGrants: deny, ' +
          'warned under warn; break-glass is the audited way): Group system:masters (ClusterRoleBinding cluster-admin, ' +
          'ClusterRole cluster-admin), ServiceAccount tools/ops (RoleBinding openshift-machine-api/ops-everything, ' +
          'Role everything)',
      ],
    );
  });

  test('RBAC that cannot be listed: a note, and no owner judged unprotected', async () => {
    const report = await runAudit(
      deps(fakeLister({ 'machines.machine.openshift.io': machines }), { ownerGrants: true }),
    );
    assert.deepEqual(
      report.findings.filter((f) => f.rule === 'unprotected-owner'),
      [],
    );
    assert.ok(
      report.notes.some((n) => /RBAC grants of hook owners could not be listed/.test(n)),
      report.notes.join('\n'),
    );
  });

  test('without ownerGrants, RBAC is not listed and no owner is judged unprotected', async () => {
    const calls: Array<{ resource: string }> = [];
    const report = await runAudit(
      deps(fakeLister({ ...rbacPages(), 'machines.machine.openshift.io': machines }, calls)),
    );
    assert.deepEqual(
      report.findings.filter((f) => f.rule === 'unprotected-owner'),
      [],
    );
    assert.ok(!calls.some((c) => c.resource.includes('rbac')));
  });
});
