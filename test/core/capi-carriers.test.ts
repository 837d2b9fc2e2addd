// Cluster API hook carriers: hooks read from and written to annotations, for Machines and their templates.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseHookAnnotationKey } from '../../src/core/capi.js';
import { carrierFor, MACHINE_STAGES, wellFormed, type HookCarrier } from '../../src/core/carriers.js';
import { diff } from '../../src/core/patch.js';
import type { KubeObject } from '../../src/core/types.js';
import { capiMachine, capiTemplate, KCP_CLEANUP, PRE_DRAIN, PRE_TERMINATE } from '../fixtures/capi.js';
import { applyPatch } from '../helpers/json-patch.js';

function carrier(kind: string, version = 'v1beta1'): HookCarrier {
  const c = carrierFor({ group: 'cluster.x-k8s.io', version, kind });
  assert.ok(c, `no carrier for ${kind}`);
  return c;
}

function annotations(obj: KubeObject): Record<string, unknown> {
  return (obj['metadata'] as Record<string, unknown>)['annotations'] as Record<string, unknown>;
}

describe('Cluster API carriers', () => {
  test('match on group and kind, for v1beta1 and v1beta2 alike', () => {
    for (const version of ['v1beta1', 'v1beta2']) {
      assert.deepEqual(
        ['Machine', 'MachineSet', 'MachineDeployment', 'Cluster'].map((k) => {
          const c = carrier(k, version);
          return [c.id, c.format, c.live, c.gatesDeletion, c.stages, c.stagePath(c.stages[0] ?? 'preDrain')];
        }),
        [
          ['capi-machine', 'annotations', true, true, MACHINE_STAGES, 'metadata.annotations'],
          ['capi-machineset', 'annotations', false, false, MACHINE_STAGES, 'spec.template.metadata.annotations'],
          ['capi-machinedeployment', 'annotations', false, false, MACHINE_STAGES, 'spec.template.metadata.annotations'],
          // Upgrade hooks: live (owner-only removal), but gating no deletion.
          ['capi-cluster', 'annotations', true, false, ['beforeUpgrade'], 'metadata.annotations'],
        ],
      );
    }
    assert.equal(carrierFor({ group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'ClusterClass' }), undefined);
    assert.equal(carrierFor({ group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' })?.format, 'list');
  });

  test("reads the kubeadm control plane's kcp-cleanup hook, with its empty owner, and ignores other annotations", () => {
    const reading = carrier('Machine').read(capiMachine());
    assert.deepEqual(reading, {
      problems: [],
      hooks: [
        {
          stage: 'preTerminate',
          index: 0,
          name: 'kcp-cleanup',
          owner: '',
          key: KCP_CLEANUP,
          path: `metadata.annotations[${KCP_CLEANUP}]`,
          namePath: `metadata.annotations[${KCP_CLEANUP}]`,
          ownerPath: `metadata.annotations[${KCP_CLEANUP}]`,
        },
      ],
    });
  });

  test('reads both stages, in v1beta2 too', () => {
    const obj = capiMachine({
      version: 'v1beta2',
      annotations: {
        [`${PRE_DRAIN}/migrate-volumes`]: 'storage.example.com/volume-migrator',
        [`${PRE_DRAIN}/EtcdQuorumOperator`]: 'clusteroperator/etcd',
      },
    });
    assert.deepEqual(
      wellFormed(carrier('Machine', 'v1beta2').read(obj).hooks).map((h) => [h.stage, h.index, h.name, h.owner]),
      [
        ['preTerminate', 0, 'kcp-cleanup', ''],
        ['preDrain', 0, 'migrate-volumes', 'storage.example.com/volume-migrator'],
        ['preDrain', 1, 'EtcdQuorumOperator', 'clusteroperator/etcd'],
      ],
    );
  });

  test('every key with the hook prefix is a hook, as the Machine controller counts them (strings.HasPrefix)', () => {
    assert.deepEqual(parseHookAnnotationKey(`${PRE_DRAIN}/x`, MACHINE_STAGES), {
      stage: 'preDrain',
      name: 'x',
      canonical: true,
    });
    assert.deepEqual(parseHookAnnotationKey(PRE_DRAIN, MACHINE_STAGES), {
      stage: 'preDrain',
      name: PRE_DRAIN,
      canonical: false,
    });
    assert.deepEqual(parseHookAnnotationKey(`${PRE_TERMINATE}-extra/y`, MACHINE_STAGES), {
      stage: 'preTerminate',
      name: `${PRE_TERMINATE}-extra/y`,
      canonical: false,
    });
    assert.equal(parseHookAnnotationKey('machine.cluster.x-k8s.io/exclude-node-draining', MACHINE_STAGES), undefined);
    assert.equal(
      parseHookAnnotationKey('example.com/pre-drain.delete.hook.machine.cluster.x-k8s.io', MACHINE_STAGES),
      undefined,
    );
  });

  test('a null annotation value is an empty owner (a Go map[string]string decodes null as "")', () => {
    const obj = capiMachine({ withoutKcpAnnotations: true, annotations: { [`${PRE_DRAIN}/x`]: null } });
    assert.deepEqual(
      wellFormed(carrier('Machine').read(obj).hooks).map((h) => h.owner),
      [''],
    );
  });

  test('annotations that are not a map are a structural problem', () => {
    const obj = capiMachine({ withoutKcpAnnotations: true });
    (obj['metadata'] as Record<string, unknown>)['annotations'] = ['not', 'a', 'map'];
    assert.deepEqual(
      carrier('Machine')
        .read(obj)
        .problems.map((p) => p.message),
      ['metadata.annotations: Invalid value: "array": metadata.annotations in body must be of type object: "array"'],
    );
  });

  test('templates keep hooks in spec.template.metadata.annotations', () => {
    for (const kind of ['MachineSet', 'MachineDeployment'] as const) {
      const reading = carrier(kind).read(
        capiTemplate(kind, {
          [`${PRE_DRAIN}/migrate-volumes`]: 'storage.example.com/volume-migrator',
          'example.com/other': 'x',
        }),
      );
      assert.deepEqual(
        reading.hooks.map((h) => [h.stage, h.name, h.owner, h.path]),
        [
          [
            'preDrain',
            'migrate-volumes',
            'storage.example.com/volume-migrator',
            `spec.template.metadata.annotations[${PRE_DRAIN}/migrate-volumes]`,
          ],
        ],
      );
    }
  });
});

describe('Cluster API carrier write()', () => {
  const c = carrierFor({ group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Machine' }) as HookCarrier;

  test('sets one stage: adds, changes owners, removes; other annotations and the other stage are untouched', () => {
    const obj = capiMachine({ annotations: { [`${PRE_DRAIN}/old`]: 'o-1', [`${PRE_DRAIN}/keep`]: 'o-2' } });
    c.write(obj, 'preDrain', [
      { name: 'keep', owner: 'o-3' },
      { name: 'new', owner: 'o-4' },
    ]);
    assert.deepEqual(annotations(obj), {
      'controlplane.cluster.x-k8s.io/kubeadm-cluster-configuration':
        annotations(capiMachine())['controlplane.cluster.x-k8s.io/kubeadm-cluster-configuration'],
      [KCP_CLEANUP]: '',
      [`${PRE_DRAIN}/keep`]: 'o-3',
      [`${PRE_DRAIN}/new`]: 'o-4',
    });
  });

  test('writing back what was read changes nothing, including keys that are not in the documented form', () => {
    const original = capiMachine({ annotations: { [PRE_DRAIN]: '', [`${PRE_DRAIN}/a`]: 'o-1' } });
    const copy = structuredClone(original);
    for (const stage of ['preDrain', 'preTerminate'] as const) {
      c.write(
        copy,
        stage,
        wellFormed(c.read(copy).hooks).filter((h) => h.stage === stage),
      );
    }
    assert.deepEqual(diff(original, copy), []);
  });

  test('creates metadata.annotations when a Machine has none', () => {
    const obj = capiMachine({ role: 'worker' });
    assert.equal((obj['metadata'] as Record<string, unknown>)['annotations'], undefined);
    c.write(obj, 'preTerminate', [{ name: 'drain-guard', owner: '' }]);
    assert.deepEqual(annotations(obj), { [`${PRE_TERMINATE}/drain-guard`]: '' });
  });

  test("the JSON Patch escapes the key's '/' as ~1 (and '~' as ~0), and applies back to the written object", () => {
    const original = capiMachine();
    const copy = structuredClone(original);
    c.write(copy, 'preDrain', [
      { name: 'my-hook', owner: 'o-1' },
      { name: 'odd~name', owner: 'o-2' },
    ]);
    const patch = diff(original, copy);
    assert.deepEqual(patch, [
      {
        op: 'add',
        path: '/metadata/annotations/pre-drain.delete.hook.machine.cluster.x-k8s.io~1my-hook',
        value: 'o-1',
      },
      {
        op: 'add',
        path: '/metadata/annotations/pre-drain.delete.hook.machine.cluster.x-k8s.io~1odd~0name',
        value: 'o-2',
      },
    ]);
    const applied = applyPatch(original, patch);
    assert.deepEqual(applied, copy);
  });
});
