// Rule deletion-freeze for Cluster API: once deletionTimestamp is set, hook annotations may only be removed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handle } from '../../src/admission/handle.js';
import type { UserInfo } from '../../src/core/types.js';
import {
  CAPI_USERS,
  capiInput,
  capiMachine,
  capiPolicy,
  KCP_CLEANUP,
  PRE_DRAIN,
  PRE_TERMINATE,
  type CapiVersion,
} from '../fixtures/capi.js';

const DELETING = '2026-11-21T10:00:00Z';
const policy = capiPolicy();

function onDeleting(
  before: Record<string, string>,
  after: Record<string, string>,
  user: UserInfo = CAPI_USERS.capi,
  version: CapiVersion = 'v1beta1',
) {
  const oldObject = capiMachine({
    version,
    withoutKcpAnnotations: true,
    annotations: before,
    deletionTimestamp: DELETING,
  });
  const object = capiMachine({
    version,
    withoutKcpAnnotations: true,
    annotations: after,
    deletionTimestamp: DELETING,
    resourceVersion: '190002',
  });
  return handle('validate', policy, capiInput({ operation: 'UPDATE', object, oldObject, user }));
}

describe('deletion-freeze for Cluster API hook annotations', () => {
  const frozen = (stage: 'pre-drain' | 'pre-terminate', hooks: string) =>
    `metadata.annotations: Forbidden: ${stage} hooks are immutable when machine is marked for deletion: the following hooks are new or changed: ${hooks}`;

  const cases: Array<[string, Record<string, string>, Record<string, string>, string[]]> = [
    [
      'a new pre-drain hook',
      {},
      { [`${PRE_DRAIN}/late-hook`]: 'team-x' },
      [frozen('pre-drain', '[{Name:late-hook Owner:team-x}]')],
    ],
    [
      'a new pre-terminate hook with the empty owner',
      { [KCP_CLEANUP]: '' },
      { [KCP_CLEANUP]: '', [`${PRE_TERMINATE}/late`]: '' },
      [frozen('pre-terminate', '[{Name:late Owner:}]')],
    ],
    [
      'a changed owner is a changed hook',
      { [KCP_CLEANUP]: '' },
      { [KCP_CLEANUP]: 'team-x' },
      [frozen('pre-terminate', '[{Name:kcp-cleanup Owner:team-x}]')],
    ],
    [
      'both stages at once, each listing its hooks as Go prints them',
      {},
      { [`${PRE_DRAIN}/a`]: 'o-1', [`${PRE_DRAIN}/b`]: 'o-2', [`${PRE_TERMINATE}/c`]: 'o-3' },
      [frozen('pre-drain', '[{Name:a Owner:o-1} {Name:b Owner:o-2}]'), frozen('pre-terminate', '[{Name:c Owner:o-3}]')],
    ],
    ['removing kcp-cleanup, as the kubeadm control plane does while deleting', { [KCP_CLEANUP]: '' }, {}, []],
    [
      'removing one hook of several',
      { [`${PRE_DRAIN}/a`]: 'o-1', [`${PRE_DRAIN}/b`]: 'o-2' },
      { [`${PRE_DRAIN}/b`]: 'o-2' },
      [],
    ],
    ['editing an unrelated annotation', { [KCP_CLEANUP]: '' }, { [KCP_CLEANUP]: '', 'example.com/note': 'x' }, []],
  ];
  for (const [title, before, after, expected] of cases) {
    test(title, () => {
      for (const version of ['v1beta1', 'v1beta2'] as const) {
        assert.deepEqual(
          onDeleting(before, after, CAPI_USERS.capi, version).decision.denials.map((v) => v.message),
          expected,
          version,
        );
      }
    });
  }

  test('a key the Machine controller counts as a hook cannot slip in undocumented form', () => {
    const out = onDeleting({}, { [PRE_DRAIN]: '' });
    assert.deepEqual(
      out.decision.denials.map((v) => v.rule),
      ['hook-naming', 'deletion-freeze'],
    );
    assert.equal(out.decision.denials[1]?.message, frozen('pre-drain', `[{Name:${PRE_DRAIN} Owner:}]`));
  });

  test('a Machine not being deleted may gain hooks', () => {
    const oldObject = capiMachine({});
    const object = capiMachine({ annotations: { [`${PRE_DRAIN}/late-hook`]: 'team-x' }, resourceVersion: '190003' });
    assert.equal(
      handle('validate', policy, capiInput({ operation: 'UPDATE', object, oldObject, user: CAPI_USERS.alice })).result
        .allowed,
      true,
    );
  });

  test("the controller's removal of a deleting Machine's last finalizer skips validation, whatever its hooks", () => {
    const annotations = { [`${PRE_DRAIN}/EtcdQuorumOperator`]: 'clusteroperator/etcd' };
    const oldObject = capiMachine({ annotations, deletionTimestamp: DELETING });
    const object = capiMachine({ annotations, deletionTimestamp: DELETING, finalizers: [], resourceVersion: '190004' });
    const out = handle(
      'validate',
      policy,
      capiInput({ operation: 'UPDATE', object, oldObject, user: CAPI_USERS.capi }),
    );
    assert.deepEqual([out.result.allowed, out.decision.denials.length, out.decision.warnings.length], [true, 0, 0]);
  });
});
