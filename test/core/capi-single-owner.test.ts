// Rule single-owner for Cluster API: annotations are a map, so no duplicates within a stage; the cross-stage
// rule and reserved names still apply.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import type { KubeObject } from '../../src/core/types.js';
import {
  CAPI_USERS,
  capiInput,
  capiMachine,
  capiPolicy,
  capiTemplate,
  KCP_CLEANUP,
  PRE_DRAIN,
  PRE_TERMINATE,
} from '../fixtures/capi.js';

const policy = capiPolicy();

/**
 * /validate's denials, the object unmutated: a control-plane Machine here lacks the default hook the mutation would
 * have added, which is default-hook-kept's to say (test/core/default-hook-kept.test.ts), not this rule's.
 */
function denials(obj: KubeObject): Array<[string, string]> {
  const out = handle('validate', policy, capiInput({ operation: 'CREATE', object: obj, user: CAPI_USERS.capi }));
  return out.decision.denials.filter((v) => v.rule !== 'default-hook-kept').map((v) => [v.rule, v.message]);
}

describe('single-owner for Cluster API hook annotations', () => {
  const cases: Array<[string, Record<string, string>, Array<[string, string]>]> = [
    [
      'one name in both stages with one owner',
      { [`${PRE_DRAIN}/migrate-volumes`]: 'o-1', [`${PRE_TERMINATE}/migrate-volumes`]: 'o-1' },
      [],
    ],
    ['kcp-cleanup in both stages, both with the empty owner', { [`${PRE_DRAIN}/kcp-cleanup`]: '' }, []],
    [
      'one name in both stages with two owners',
      { [`${PRE_DRAIN}/migrate-volumes`]: 'o-1', [`${PRE_TERMINATE}/migrate-volumes`]: 'o-2' },
      [
        [
          'single-owner',
          `metadata.annotations[${PRE_TERMINATE}/migrate-volumes]: Invalid value: "o-2": hook "migrate-volumes" is owned by "o-1" in preDrain; a hook name must carry the same owner in preDrain and preTerminate`,
        ],
      ],
    ],
    [
      'kcp-cleanup claimed by someone else in preDrain',
      { [`${PRE_DRAIN}/kcp-cleanup`]: 'team-x' },
      [
        [
          'single-owner',
          `metadata.annotations[${KCP_CLEANUP}]: Invalid value: "": hook "kcp-cleanup" is owned by "team-x" in preDrain; a hook name must carry the same owner in preDrain and preTerminate`,
        ],
      ],
    ],
    [
      'a reserved name with another owner',
      { [`${PRE_DRAIN}/EtcdQuorumOperator`]: 'team-x' },
      [
        [
          'single-owner',
          `metadata.annotations[${PRE_DRAIN}/EtcdQuorumOperator]: Invalid value: "team-x": hook name "EtcdQuorumOperator" is reserved for owner "clusteroperator/etcd"`,
        ],
      ],
    ],
    [
      'a reserved name with the empty owner',
      { [`${PRE_TERMINATE}/EtcdQuorumOperator`]: '' },
      [
        [
          'single-owner',
          `metadata.annotations[${PRE_TERMINATE}/EtcdQuorumOperator]: Invalid value: "": hook name "EtcdQuorumOperator" is reserved for owner "clusteroperator/etcd"`,
        ],
      ],
    ],
    ['a reserved name with its owner', { [`${PRE_DRAIN}/EtcdQuorumOperator`]: 'clusteroperator/etcd' }, []],
  ];
  for (const [title, annotations, expected] of cases) {
    test(title, () => {
      assert.deepEqual(denials(capiMachine({ annotations })), expected);
      assert.deepEqual(denials(capiMachine({ annotations, version: 'v1beta2' })), expected);
    });
  }

  test('templates: paths point into spec.template.metadata.annotations', () => {
    assert.deepEqual(denials(capiTemplate('MachineDeployment', { [`${PRE_DRAIN}/EtcdQuorumOperator`]: 'team-x' })), [
      [
        'single-owner',
        `spec.template.metadata.annotations[${PRE_DRAIN}/EtcdQuorumOperator]: Invalid value: "team-x": hook name "EtcdQuorumOperator" is reserved for owner "clusteroperator/etcd"`,
      ],
    ]);
  });

  test('the violation names the hook, for CLI output and metrics', () => {
    const out = handle(
      'validate',
      policy,
      capiInput({
        operation: 'CREATE',
        object: capiMachine({ annotations: { [`${PRE_DRAIN}/EtcdQuorumOperator`]: 'team-x' } }),
      }),
    );
    const v = out.decision.denials[0];
    assert.deepEqual(
      [v?.path, v?.hook, v?.fix],
      [
        `metadata.annotations[${PRE_DRAIN}/EtcdQuorumOperator]`,
        { stage: 'preDrain', name: 'EtcdQuorumOperator', owner: 'team-x' },
        'hook "EtcdQuorumOperator" belongs to "clusteroperator/etcd": choose another name for your hook',
      ],
    );
  });
});
