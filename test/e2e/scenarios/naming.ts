// Invalid hook names, owners and duplicates: which the CRD schema rejects (before the validating webhook runs)
// and which only hookkeeper can see (reserved names, one name with two owners across stages).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine, type Hook } from '../../../testing/control-plane/machines.js';
import { CREATE_DENIAL_PREFIX, rejected } from '../../../testing/control-plane/kube.js';
import { assertOurDenial } from './helpers.js';
import type { Scenario } from '../harness/suite.js';

const HOOK_NAME_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';

interface Case {
  title: string;
  name: string;
  preDrain?: Hook[];
  preTerminate?: Hook[];
  /** The CRD schema (before any admission) or hookkeeper (the webhook or its policies). */
  by: 'schema' | 'hookkeeper';
  /** The schema's whole message, or hookkeeper's after the API server's prefix. */
  message: string;
}

function invalid(kind: string, name: string, detail: string): string {
  return `${kind}.machine.openshift.io "${name}" is invalid: ${detail}`;
}

const CASES: readonly Case[] = [
  {
    title: 'a name shorter than 3 characters',
    name: 'bad-name-short',
    preDrain: [{ name: 'ab', owner: 'team-a' }],
    by: 'schema',
    message: invalid(
      'Machine',
      'bad-name-short',
      'spec.lifecycleHooks.preDrain[0].name: Invalid value: "ab": spec.lifecycleHooks.preDrain[0].name in body should be at least 3 chars long',
    ),
  },
  {
    title: 'a name outside the pattern',
    name: 'bad-name-pattern',
    preTerminate: [{ name: 'Not A Hook!', owner: 'team-a' }],
    by: 'schema',
    message: invalid(
      'Machine',
      'bad-name-pattern',
      `spec.lifecycleHooks.preTerminate[0].name: Invalid value: "Not A Hook!": spec.lifecycleHooks.preTerminate[0].name in body should match '${HOOK_NAME_PATTERN}'`,
    ),
  },
  {
    title: 'an owner shorter than 3 characters',
    name: 'bad-owner-short',
    preDrain: [{ name: 'example.com/Gate', owner: 'me' }],
    by: 'schema',
    message: invalid(
      'Machine',
      'bad-owner-short',
      'spec.lifecycleHooks.preDrain[0].owner: Invalid value: "me": spec.lifecycleHooks.preDrain[0].owner in body should be at least 3 chars long',
    ),
  },
  {
    title: 'a duplicate name in one stage (a list-map key)',
    name: 'bad-duplicate',
    preDrain: [
      { name: 'example.com/Gate', owner: 'team-a' },
      { name: 'example.com/Gate', owner: 'team-b' },
    ],
    by: 'schema',
    message: invalid(
      'Machine',
      'bad-duplicate',
      'spec.lifecycleHooks.preDrain[1]: Duplicate value: {"name":"example.com/Gate"}',
    ),
  },
  {
    title: 'one name with different owners in preDrain and preTerminate',
    name: 'bad-cross-stage',
    preDrain: [{ name: 'example.com/Gate', owner: 'team-a' }],
    preTerminate: [{ name: 'example.com/Gate', owner: 'team-b' }],
    by: 'hookkeeper',
    message:
      `spec.lifecycleHooks.preTerminate[0].owner: Invalid value: "team-b": hook "example.com/Gate" is owned by "team-a" in preDrain; ` +
      'a hook name must carry the same owner in preDrain and preTerminate',
  },
  {
    title: 'the reserved etcd hook name with another owner',
    name: 'bad-reserved',
    preDrain: [{ name: ETCD_HOOK.name, owner: 'someone' }],
    by: 'hookkeeper',
    message:
      'spec.lifecycleHooks.preDrain[0].owner: Invalid value: "someone": hook name "EtcdQuorumOperator" is reserved for owner "clusteroperator/etcd"',
  },
];

export const namingScenarios: Scenario = (env) => {
  describe('invalid hook names and duplicates', () => {
    for (const c of CASES) {
      test(`${c.title}: rejected by ${c.by === 'schema' ? 'the CRD schema' : 'hookkeeper'}`, async () => {
        const machines = env().machines('admin');
        const body = openshiftMachine({
          name: c.name,
          role: 'worker',
          ...(c.preDrain ? { preDrain: c.preDrain } : {}),
          ...(c.preTerminate ? { preTerminate: c.preTerminate } : {}),
        });
        const refusal = await rejected(() => machines.create(MACHINE_NAMESPACE, body));
        if (c.by === 'schema') {
          assert.equal(refusal.by, 'schema', refusal.message);
          assert.equal(refusal.code, 422);
          assert.equal(refusal.message, c.message);
        } else {
          assertOurDenial(env(), refusal, [c.message], CREATE_DENIAL_PREFIX);
        }
        assert.equal(await machines.exists(MACHINE_NAMESPACE, c.name), false);
      });
    }
  });
};
