// Where a Machine's deletion stands (src/core/explain/standing.ts through explainMachine): Cluster API's v1.14
// start times and Deleting condition (v1beta2, and v1beta1's status.v1beta2), the Machine API's Drainable/Terminable,
// and what is derived, and said to be derived, when a controller wrote none of them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { explainMachine } from '../../src/core/explain/explain.js';
import type { ExplainFacts, MachineExplanation } from '../../src/core/explain/model.js';
import type { KubeObject } from '../../src/core/types.js';
import { ETCD, machine } from '../fixtures/openshift.js';

const DELETED = '2026-11-28T10:00:00Z';
const NOW = Date.parse('2026-11-28T12:00:00Z');
const unknown = { status: 'unknown', reason: 'test' } as const;
const FACTS: ExplainFacts = {
  source: 'cluster',
  nowMs: NOW,
  grants: unknown,
  serviceAccounts: unknown,
  node: unknown,
  clusterOperators: {},
};

const PRE_DRAIN = 'pre-drain.delete.hook.machine.cluster.x-k8s.io/backup';
const PRE_TERMINATE = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/cleanup';

function capi(apiVersion: string, status: Record<string, unknown>, deleting = true): KubeObject {
  return {
    apiVersion,
    kind: 'Machine',
    metadata: {
      name: 'cp-0',
      namespace: 'capi',
      ...(deleting ? { deletionTimestamp: DELETED } : {}),
      annotations: { [PRE_DRAIN]: 'team/storage', [PRE_TERMINATE]: 'team/net' },
    },
    spec: { clusterName: 'prod' },
    status,
  };
}

const explain = (object: KubeObject): MachineExplanation =>
  explainMachine({ object, policy: DEFAULT_POLICY, facts: FACTS });

const holds = (x: MachineExplanation): string[] => x.hooks.map((h) => `${h.stage}:${h.holds}`);

describe('explain: where a Cluster API deletion stands', () => {
  test('v1beta2: the Deleting condition names the step, status.deletion its start', () => {
    const x = explain(
      capi('cluster.x-k8s.io/v1beta2', {
        deletion: { waitForPreDrainHookStartTime: '2026-11-28T10:00:05Z' },
        conditions: [
          { type: 'Ready', status: 'False', reason: 'Deleting' },
          {
            type: 'Deleting',
            status: 'True',
            reason: 'WaitingForPreDrainHook',
            message: 'Waiting for pre-drain hooks to succeed (hooks: backup)',
          },
        ],
      }),
    );
    assert.deepEqual(x.deletion.waitingAt, {
      step: 'preDrain',
      evidence: {
        basis: 'condition',
        detail:
          'status.conditions[type=Deleting] reason WaitingForPreDrainHook: Waiting for pre-drain hooks to succeed (hooks: backup)',
      },
      since: '2026-11-28T10:00:05Z',
      sinceEvidence: { basis: 'field', detail: 'status.deletion.waitForPreDrainHookStartTime' },
      forSeconds: 7195,
    });
    assert.equal(x.deletion.forSeconds, 7200);
    assert.deepEqual(holds(x), ['preDrain:now', 'preTerminate:next']);
    assert.deepEqual(x.deletion.notes, []);
  });

  test('v1beta1: the v1beta2 conditions live under status.v1beta2; past preDrain, its hook no longer holds', () => {
    const x = explain(
      capi('cluster.x-k8s.io/v1beta1', {
        deletion: {
          nodeDrainStartTime: '2026-11-28T10:01:00Z',
          waitForPreTerminateHookStartTime: '2026-11-28T10:30:00Z',
        },
        // v1beta1's own conditions (with severity) are not the Deleting condition read here.
        conditions: [{ type: 'Deleting', status: 'True', reason: 'WaitingForPreDrainHook', severity: 'Info' }],
        v1beta2: { conditions: [{ type: 'Deleting', status: 'True', reason: 'WaitingForPreTerminateHook' }] },
      }),
    );
    assert.equal(x.deletion.waitingAt?.step, 'preTerminate');
    assert.equal(
      x.deletion.waitingAt?.evidence.detail,
      'status.v1beta2.conditions[type=Deleting] reason WaitingForPreTerminateHook',
    );
    assert.equal(x.deletion.waitingAt?.since, '2026-11-28T10:30:00Z');
    assert.deepEqual(holds(x), ['preDrain:passed', 'preTerminate:now']);
  });

  test('no condition: the latest start time written says the step (field)', () => {
    const x = explain(capi('cluster.x-k8s.io/v1beta2', { deletion: { nodeDrainStartTime: '2026-11-28T10:02:00Z' } }));
    assert.deepEqual(x.deletion.waitingAt?.evidence, {
      basis: 'field',
      detail: 'status.deletion.nodeDrainStartTime is the latest step started',
    });
    assert.equal(x.deletion.waitingAt?.step, 'drain');
    assert.equal(x.deletion.waitingAt?.since, '2026-11-28T10:02:00Z');
  });

  test('nothing written (Cluster API before v1.14): derived from the hooks, and said so', () => {
    const x = explain(capi('cluster.x-k8s.io/v1beta1', {}));
    assert.equal(x.deletion.waitingAt?.step, 'preDrain');
    assert.equal(x.deletion.waitingAt?.evidence.basis, 'derived');
    assert.deepEqual(x.deletion.waitingAt?.sinceEvidence, {
      basis: 'derived',
      detail: 'metadata.deletionTimestamp: preDrain hooks are waited on first',
    });
    assert.equal(x.deletion.waitingAt?.since, DELETED);
    assert.match(
      x.deletion.notes[0] ?? '',
      /waitForPreDrainHookStartTime is not set: Cluster API writes it from v1\.14/,
    );
  });

  test('not deleting: no step, every hook "would hold"', () => {
    const x = explain(capi('cluster.x-k8s.io/v1beta2', {}, false));
    assert.equal(x.deletion.deleting, false);
    assert.equal(x.deletion.waitingAt, undefined);
    assert.deepEqual(holds(x), ['preDrain:none', 'preTerminate:none']);
    assert.match(x.summary, /^not deleting; 2 hook\(s\) will hold a deletion/);
  });
});

describe('explain: where a Machine API deletion stands', () => {
  const drainable = {
    type: 'Drainable',
    status: 'False',
    reason: 'HookPresent',
    severity: 'Warning',
    message: 'Drain operation currently blocked by: [{Name:EtcdQuorumOperator Owner:clusteroperator/etcd}]',
  };

  test('Drainable False with HookPresent: the condition says it; the wait began with the deletion', () => {
    const object = machine({ preDrain: [ETCD], deletionTimestamp: DELETED });
    object['status'] = { conditions: [drainable, { type: 'Terminable', status: 'True' }] };
    const x = explain(object);
    assert.equal(x.deletion.waitingAt?.step, 'preDrain');
    assert.equal(
      x.deletion.waitingAt?.evidence.detail,
      'status.conditions[type=Drainable] reason HookPresent: Drain operation currently blocked by: [{Name:EtcdQuorumOperator Owner:clusteroperator/etcd}]',
    );
    assert.equal(x.deletion.waitingAt?.sinceEvidence?.basis, 'derived');
    assert.deepEqual(
      x.deletion.conditions.map((c) => `${c.type}=${c.status}`),
      ['Drainable=False', 'Terminable=True'],
    );
  });

  test('no conditions: derived; preTerminate hooks alone wait after the drain, since when is not known', () => {
    const x = explain(
      machine({ preTerminate: [{ name: 'backup', owner: 'team/storage' }], deletionTimestamp: DELETED }),
    );
    assert.equal(x.deletion.waitingAt?.step, 'preTerminate');
    assert.equal(x.deletion.waitingAt?.evidence.basis, 'derived');
    assert.equal(x.deletion.waitingAt?.since, undefined);
    assert.deepEqual(holds(x), ['preTerminate:now']);
  });

  test('the Node of status.nodeRef, as the transport found it', () => {
    const object = machine({ preDrain: [ETCD], deletionTimestamp: DELETED });
    object['status'] = { nodeRef: { kind: 'Node', name: 'master-0.internal' } };
    const with_ = (node: ExplainFacts['node']) =>
      explainMachine({ object, policy: DEFAULT_POLICY, facts: { ...FACTS, node } }).node;
    assert.deepEqual(with_({ status: 'present', unschedulable: true }), {
      name: 'master-0.internal',
      status: 'present',
      cordoned: true,
      detail: 'Node master-0.internal exists and is cordoned (spec.unschedulable)',
    });
    assert.equal(with_({ status: 'absent' }).status, 'absent');
    assert.deepEqual(with_(unknown), { name: 'master-0.internal', status: 'unknown', detail: 'test' });
    const noNode = machine({ preDrain: [ETCD] });
    noNode['status'] = {};
    assert.equal(explain(noNode).node.status, 'none');
  });
});
