// Rule default-hooks for Cluster API: a policy rule selecting CAPI Machines injects its hook as an annotation,
// and the patch the API server receives addresses the annotation key with '/' escaped as ~1.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { evaluate } from '../../src/core/engine.js';
import type { KubeObject } from '../../src/core/types.js';
import {
  CAPI_USERS,
  capiInput,
  capiMachine,
  capiPolicy,
  capiTemplate,
  KCP_CLEANUP,
  PRE_DRAIN,
  wirePatch,
  type CapiVersion,
} from '../fixtures/capi.js';
import { applyPatch } from '../helpers/json-patch.js';

const policy = capiPolicy();
const ETCD_KEY = `${PRE_DRAIN}/EtcdQuorumOperator`;
const ETCD_PATH = '/metadata/annotations/pre-drain.delete.hook.machine.cluster.x-k8s.io~1EtcdQuorumOperator';

function mutateCreate(obj: KubeObject) {
  return handle('mutate', policy, capiInput({ operation: 'CREATE', object: obj, user: CAPI_USERS.kcp }));
}

describe('default-hooks for Cluster API Machines', () => {
  for (const version of ['v1beta1', 'v1beta2'] as CapiVersion[]) {
    test(`${version}: a control-plane Machine gets the etcd hook as an annotation, beside kcp-cleanup`, () => {
      const obj = capiMachine({ version });
      const out = mutateCreate(obj);
      const patch = wirePatch(out.result);
      assert.deepEqual(patch, [{ op: 'add', path: ETCD_PATH, value: 'clusteroperator/etcd' }]);
      assert.deepEqual(out.mutation.changes, [
        'capi-control-plane-etcd-quorum: added preDrain hook "EtcdQuorumOperator" owned by "clusteroperator/etcd"',
      ]);
      const patched = applyPatch(obj, patch);
      const meta = patched['metadata'] as Record<string, Record<string, string>>;
      assert.equal(meta['annotations']?.[KCP_CLEANUP], '');
      assert.deepEqual(meta['annotations'], {
        ...(obj['metadata'] as Record<string, Record<string, string>>)['annotations'],
        [ETCD_KEY]: 'clusteroperator/etcd',
      });
    });
  }

  test('a Machine without annotations gets the whole map', () => {
    const out = mutateCreate(capiMachine({ withoutKcpAnnotations: true }));
    assert.deepEqual(wirePatch(out.result), [
      { op: 'add', path: '/metadata/annotations', value: { [ETCD_KEY]: 'clusteroperator/etcd' } },
    ]);
  });

  test('a wrong owner is corrected in place', () => {
    const out = mutateCreate(capiMachine({ annotations: { [ETCD_KEY]: 'someone-else' } }));
    assert.deepEqual(wirePatch(out.result), [{ op: 'replace', path: ETCD_PATH, value: 'clusteroperator/etcd' }]);
  });

  test('the hook is its "<prefix>/<name>" key: a key that only starts with the prefix and parses to its name is another hook', () => {
    const name = `${PRE_DRAIN}.quorum`;
    const key = `${PRE_DRAIN}/${name}`;
    const p = capiPolicy(
      [
        '  - name: capi-quorum',
        '    match:',
        '      kinds: [{group: cluster.x-k8s.io, kind: Machine}]',
        '    operations: [CREATE]',
        '    stage: preDrain',
        `    hook: {name: ${name}, owner: clusteroperator/etcd}`,
        '',
      ].join('\n'),
    );
    for (const owner of ['clusteroperator/etcd', 'someone-else']) {
      const obj = capiMachine({ role: 'worker', annotations: { [name]: owner } });
      const out = handle('mutate', p, capiInput({ operation: 'CREATE', object: obj, user: CAPI_USERS.kcp }));
      // Added beside the other key, which keeps its value.
      assert.deepEqual(wirePatch(out.result), [
        { op: 'add', path: `/metadata/annotations/${key.replace('/', '~1')}`, value: 'clusteroperator/etcd' },
      ]);
      const audit = evaluate(p, { ...capiInput({ operation: 'CREATE', object: obj }), source: 'audit' });
      assert.deepEqual(
        audit.denials.filter((v) => v.rule === 'default-hooks').map((v) => v.key),
        ['default:capi-quorum'],
      );
    }
  });

  test('idempotent: a Machine that has the hook is not patched', () => {
    const out = mutateCreate(capiMachine({ annotations: { [ETCD_KEY]: 'clusteroperator/etcd' } }));
    assert.deepEqual([out.result.patch, out.mutation.changes], [undefined, []]);
  });

  test('worker Machines and templates do not match the control-plane selector or are not live', () => {
    assert.deepEqual(wirePatch(mutateCreate(capiMachine({ role: 'worker' })).result), []);
    const ms = capiTemplate('MachineSet', {});
    assert.deepEqual(wirePatch(handle('mutate', policy, capiInput({ operation: 'CREATE', object: ms })).result), []);
  });

  test('the rule runs on CREATE only, as configured', () => {
    const oldObject = capiMachine();
    const object = capiMachine({ resourceVersion: '182735' });
    assert.deepEqual(
      wirePatch(
        handle('mutate', policy, capiInput({ operation: 'UPDATE', object, oldObject, user: CAPI_USERS.capi })).result,
      ),
      [],
    );
  });

  test('review: the mutated Machine is what gets validated, and it passes', () => {
    const out = handle(
      'mutate-then-validate',
      policy,
      capiInput({ operation: 'CREATE', object: capiMachine({ version: 'v1beta2' }), user: CAPI_USERS.kcp }),
    );
    assert.equal(out.result.allowed, true);
    assert.deepEqual(wirePatch(out.result), [{ op: 'add', path: ETCD_PATH, value: 'clusteroperator/etcd' }]);
    assert.deepEqual(out.decision.denials, []);
  });

  test('audit: a stored control-plane Machine without the hook is reported in annotation terms', () => {
    const d = evaluate(policy, { ...capiInput({ operation: 'CREATE', object: capiMachine() }), source: 'audit' });
    assert.deepEqual(
      d.denials.map((v) => [v.path, v.message, v.fix]),
      [
        [
          'metadata.annotations',
          'metadata.annotations: Required value: default hook "EtcdQuorumOperator" owned by "clusteroperator/etcd" is missing (policy rule "capi-control-plane-etcd-quorum")',
          `add ${ETCD_KEY}: "clusteroperator/etcd" to metadata.annotations; hookkeeper adds it on create and on the update that makes the object match`,
        ],
      ],
    );
  });

  test('the embedded default policy injects nothing into Cluster API Machines', () => {
    const out = handle(
      'mutate',
      DEFAULT_POLICY,
      capiInput({ operation: 'CREATE', object: capiMachine({ namespace: 'openshift-machine-api' }) }),
    );
    assert.deepEqual(wirePatch(out.result), []);
  });
});
