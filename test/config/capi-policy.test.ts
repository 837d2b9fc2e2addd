// Policy loading for Cluster API: the shipped example loads; owners cannot be empty; default hooks for CAPI
// kinds must make valid annotation keys.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePolicy } from '../../src/infrastructure/config/load.js';
import { AppError } from '../../src/errors.js';
import { capiPolicy } from '../fixtures/capi.js';

function problems(text: string): string[] {
  try {
    parsePolicy(`apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n${text}`, 'policy.yaml');
  } catch (err) {
    assert.ok(err instanceof AppError);
    return (err.problems ?? []).map((p) => `${p.line}: ${p.path}: ${p.message}`);
  }
  return [];
}

const capiRule = (name: string, kinds = '[{group: cluster.x-k8s.io, kind: Machine}]') =>
  `defaultHooks:\n  - name: r\n    match: {kinds: ${kinds}}\n    stage: preDrain\n    hook: {name: "${name}", owner: team-x}\n`;

describe('policy for Cluster API', () => {
  test('the example policy (test/fixtures/capi-policy.yaml) loads', () => {
    const p = capiPolicy();
    assert.deepEqual(
      p.defaultHooks.map((r) => [r.name, r.match.kinds, r.stage, r.hook]),
      [
        [
          'capi-control-plane-etcd-quorum',
          [{ group: 'cluster.x-k8s.io', kind: 'Machine' }],
          'preDrain',
          { name: 'EtcdQuorumOperator', owner: 'clusteroperator/etcd' },
        ],
      ],
    );
    assert.deepEqual(p.enforcement['capi-migration'], 'warn');
  });

  test('impliedOwners: a canonical hook annotation key, a real owner, one owner per key', () => {
    const implied = (hook: string, owner: string): string =>
      `  - {hook: ${JSON.stringify(hook)}, owner: ${JSON.stringify(owner)}}\n`;
    const key = 'pre-terminate.delete.hook.machine.cluster.x-k8s.io/kcp-cleanup';
    const forms =
      'pre-drain.delete.hook.machine.cluster.x-k8s.io/<name> or pre-terminate.delete.hook.machine.cluster.x-k8s.io/<name>';
    assert.deepEqual(
      problems(
        'impliedOwners:\n' +
          implied('kcp-cleanup', 'team/a') +
          implied('pre-terminate.delete.hook.machine.cluster.x-k8s.io', 'team/a') +
          implied(key, '') +
          implied(key, 'team/a') +
          implied(key, 'team/b') +
          implied('pre-drain.delete.hook.machine.cluster.x-k8s.io/bad name', 'team/a') +
          implied(`${key}-2`, 'hookkeeper.io/wildcard-probe') +
          '  - {hook: x}\n',
      ),
      [
        `4: impliedOwners[0].hook: must be a Cluster API hook annotation key: ${forms}`,
        `5: impliedOwners[1].hook: must be a Cluster API hook annotation key: ${forms}`,
        '6: impliedOwners[2].owner: must NOT have fewer than 1 characters',
        `8: impliedOwners[4]: hook ${key} implies two owners: "team/a" and "team/b"`,
        "9: impliedOwners[5].hook: as an annotation key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        '10: impliedOwners[6].owner: hookkeeper.io/wildcard-probe is reserved: hookkeeper asks RBAC about it to tell wildcard rights from a grant naming an owner',
        "11: impliedOwners[7]: must have required property 'owner'",
        `11: impliedOwners[7].hook: must be a Cluster API hook annotation key: ${forms}`,
      ],
    );
    // The same entry twice is one owner, said twice.
    assert.deepEqual(problems('impliedOwners:\n' + implied(key, 'team/a') + implied(key, 'team/a')), []);
  });

  test('impliedOwners: at most 32 keys, each a conditional in the CEL of the rules that read owners', () => {
    const entries = (n: number): string =>
      'impliedOwners:\n' +
      Array.from(
        { length: n },
        (_, i) => `  - {hook: pre-drain.delete.hook.machine.cluster.x-k8s.io/h${i}, owner: team/a}\n`,
      ).join('');
    assert.deepEqual(problems(entries(32)), []);
    assert.deepEqual(problems(entries(33)), ['3: impliedOwners: must NOT have more than 32 items']);
  });

  test('an empty owner cannot be registered', () => {
    assert.deepEqual(problems('owners:\n  "": {users: [alice]}\n'), [
      '4: owners[""]: must NOT have fewer than 1 characters',
      '4: owners[""]: property name must be valid',
    ]);
  });

  test('a default hook for a Cluster API kind must make a valid annotation key', () => {
    assert.deepEqual(problems(capiRule('storage.example.com/MigrateVolumes')), [
      "7: defaultHooks[0].hook.name: as Cluster API annotation key \"pre-drain.delete.hook.machine.cluster.x-k8s.io/storage.example.com/MigrateVolumes\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
    assert.deepEqual(problems(capiRule('H'.repeat(64))), [
      `7: defaultHooks[0].hook.name: as Cluster API annotation key "pre-drain.delete.hook.machine.cluster.x-k8s.io/${'H'.repeat(64)}": name part must be no more than 63 bytes`,
    ]);
    assert.deepEqual(problems(capiRule('MigrateVolumes')), []);
  });

  test('the same name is fine for Machine API kinds only', () => {
    assert.deepEqual(
      problems(capiRule('storage.example.com/MigrateVolumes', '[{group: machine.openshift.io, kind: Machine}]')),
      [],
    );
  });
});
