// defaultHooks[].match.kinds names kinds hookkeeper adds hooks to; a typo would silently switch protection off.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { CARRIERS } from '../../src/core/carriers.js';
import { policyProblems, type PolicyProblem } from '../helpers/policy-problems.js';

function problemsOf(kind: string): PolicyProblem[] {
  const text = [
    'apiVersion: hookkeeper.io/v1alpha1',
    'kind: Policy',
    'defaultHooks:',
    '  - name: etcd',
    '    match:',
    '      kinds:',
    '        - {group: machine.openshift.io, kind: Machine}',
    `        - ${kind}`,
    '    stage: preDrain',
    '    hook: {name: EtcdQuorumOperator, owner: clusteroperator/etcd}',
    '',
  ].join('\n');
  return policyProblems(text);
}

describe('defaultHooks[].match.kinds', () => {
  for (const [kind, nearest] of [
    ['{group: machine.openshift.io, kind: Machines}', '{group: machine.openshift.io, kind: Machine}'],
    ['{group: machine.openshift.io/v1beta1, kind: Machine}', '{group: machine.openshift.io, kind: Machine}'],
    ['{group: cluster.x-k8s.io, kind: machine}', '{group: cluster.x-k8s.io, kind: Machine}'],
    ['{group: "", kind: Pod}', undefined],
  ] as const) {
    test(`${kind} is refused${nearest ? `, suggesting ${nearest}` : ''}`, () => {
      const problems = problemsOf(kind);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      const [p] = problems;
      assert.equal(p?.line, 8);
      assert.match(p?.message ?? '', /is not a kind hookkeeper adds default hooks to/);
      if (nearest) assert.ok(p?.message.includes(`did you mean ${nearest}?`), p?.message);
      // Every kind a default hook can use is listed, from the carriers themselves.
      for (const c of CARRIERS.filter((x) => x.gatesDeletion)) assert.ok(p?.message.includes(`${c.group}/${c.kind}`));
    });
  }

  test('a template kind is refused: default hooks go into Machines, not templates', () => {
    const [p, ...rest] = problemsOf('{group: machine.openshift.io, kind: MachineSet}');
    assert.equal(rest.length, 0);
    assert.match(p?.message ?? '', /MachineSet/);
    assert.match(p?.message ?? '', /templates are not mutated/);
  });

  test("a Cluster is refused: its upgrade hooks are its users' own, and a default hook gates a Machine's deletion", () => {
    const [p, ...rest] = problemsOf('{group: cluster.x-k8s.io, kind: Cluster}');
    assert.equal(rest.length, 0);
    assert.match(p?.message ?? '', /cluster\.x-k8s\.io\/Cluster carries upgrade hooks, which are not added by default/);
  });

  test('every carrier that gates its deletion is accepted', () => {
    for (const c of CARRIERS.filter((x) => x.gatesDeletion))
      parsePolicy(
        [
          'apiVersion: hookkeeper.io/v1alpha1',
          'kind: Policy',
          'defaultHooks:',
          '  - name: etcd',
          `    match: {kinds: [{group: ${c.group}, kind: ${c.kind}}]}`,
          '    stage: preDrain',
          '    hook: {name: EtcdQuorumOperator, owner: clusteroperator/etcd}',
          '',
        ].join('\n'),
        'policy.yaml',
      );
  });
});
