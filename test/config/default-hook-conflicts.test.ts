// A policy whose default hooks break single-owner (a reserved name given another owner, one name given two owners)
// would have every Machine it mutates refused by its own patch: the loader refuses it, naming both places.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { cli } from '../helpers/cli.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { policyProblems, type PolicyProblem } from '../helpers/policy-problems.js';

const HEAD = ['apiVersion: hookkeeper.io/v1alpha1', 'kind: Policy'];
const OSM = '{kinds: [{group: machine.openshift.io, kind: Machine}]}';

function problemsOf(lines: string[]): PolicyProblem[] {
  return policyProblems([...HEAD, ...lines, ''].join('\n')).map(({ line, message }) => ({
    ...(line === undefined ? {} : { line }),
    message,
  }));
}

function defaultHook(name: string, stage: string, hook: string, match = OSM): string[] {
  return [`  - name: ${name}`, `    match: ${match}`, `    stage: ${stage}`, `    hook: ${hook}`];
}

describe('default hooks that defeat single-owner', () => {
  test('a default hook giving a reserved name another owner names both places', () => {
    const problems = problemsOf([
      'reservedHooks:',
      '  - {name: EtcdQuorumOperator, owner: clusteroperator/etcd}',
      'defaultHooks:',
      ...defaultHook('etcd', 'preDrain', '{name: EtcdQuorumOperator, owner: team/etcd}'),
    ]);
    assert.equal(problems.length, 1);
    const [p] = problems;
    assert.equal(p?.line, 9);
    assert.match(p?.message ?? '', /EtcdQuorumOperator/);
    assert.match(p?.message ?? '', /team\/etcd/);
    assert.match(p?.message ?? '', /reservedHooks\[0\] \(line 4\)/);
    assert.match(p?.message ?? '', /clusteroperator\/etcd/);
  });

  test('the embedded default reservation counts when the file sets no reservedHooks', () => {
    const [p, ...rest] = problemsOf([
      'defaultHooks:',
      ...defaultHook('etcd', 'preDrain', '{name: EtcdQuorumOperator, owner: team/etcd}'),
    ]);
    assert.equal(rest.length, 0);
    assert.equal(p?.line, 7);
    assert.match(p?.message ?? '', /embedded default policy/);
  });

  test("the embedded default's etcd hook conflicts with a file reserving its name for another owner", () => {
    const [p, ...rest] = problemsOf(['reservedHooks:', '  - {name: EtcdQuorumOperator, owner: team/etcd}']);
    assert.equal(rest.length, 0);
    assert.equal(p?.line, 4);
    assert.match(p?.message ?? '', /embedded default policy/);
    assert.match(p?.message ?? '', /clusteroperator\/etcd/);
  });

  for (const [what, stage] of [
    ['the same stage', 'preDrain'],
    ['two stages', 'preTerminate'],
  ] as const) {
    test(`two default hooks giving one name two owners in ${what} name both places`, () => {
      const problems = problemsOf([
        'defaultHooks:',
        ...defaultHook('a', 'preDrain', '{name: Storage, owner: team/a}'),
        ...defaultHook('b', stage, '{name: Storage, owner: team/b}'),
      ]);
      assert.equal(problems.length, 1);
      assert.equal(problems[0]?.line, 11);
      assert.match(problems[0]?.message ?? '', /Storage/);
      assert.match(problems[0]?.message ?? '', /defaultHooks\[0\]\.hook\.owner \(line 7\)/);
      assert.match(problems[0]?.message ?? '', /team\/a/);
    });
  }

  test('one name with one owner in several rules, or rules that never meet, load', () => {
    const capi = '{kinds: [{group: cluster.x-k8s.io, kind: Machine}]}';
    parsePolicy(
      [
        ...HEAD,
        'defaultHooks:',
        ...defaultHook('a', 'preDrain', '{name: Storage, owner: team/a}'),
        ...defaultHook('b', 'preTerminate', '{name: Storage, owner: team/a}'),
        ...defaultHook('c', 'preDrain', '{name: Net, owner: team/a}'),
        ...defaultHook('d', 'preDrain', '{name: Net, owner: team/b}', capi),
        ...defaultHook(
          'e',
          'preDrain',
          '{name: Dns, owner: team/a}',
          `{kinds: [{group: machine.openshift.io, kind: Machine}], namespaces: [x]}`,
        ),
        ...defaultHook(
          'f',
          'preDrain',
          '{name: Dns, owner: team/b}',
          `{kinds: [{group: machine.openshift.io, kind: Machine}], namespaces: [y]}`,
        ),
        '',
      ].join('\n'),
      'policy.yaml',
    );
  });

  test('the CLI refuses such a policy with exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hk-conflict-'));
    writeFileSync(
      join(dir, 'policy.yaml'),
      [
        ...HEAD,
        'defaultHooks:',
        ...defaultHook('etcd', 'preDrain', '{name: EtcdQuorumOperator, owner: team/etcd}'),
        '',
      ].join('\n'),
    );
    const run = await cli(['review', '--config', 'policy.yaml'], { cwd: dir, stdin: '{}' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /policy\.yaml:7/);
    assert.match(run.stderr, /EtcdQuorumOperator/);
  });
});
