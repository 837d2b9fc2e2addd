// capiMigrationWarnings: Machine API hooks whose names cannot become Cluster API hook annotation keys.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/config/defaults.js';
import { capiMigrationWarnings } from '../../src/core/capi-migration.js';
import { carrierFor, type HookCarrier } from '../../src/core/carriers.js';
import { evaluate } from '../../src/core/engine.js';
import type { KubeObject } from '../../src/core/types.js';
import { capiMachine, PRE_DRAIN } from '../fixtures/capi.js';
import { reviewInput } from '../fixtures/input.js';
import { machine, type HookSpec } from '../fixtures/openshift.js';

const REGEX = "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'";
const TWO_SLASHES =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  `(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is ${REGEX}) with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
const MAPI = carrierFor({ group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' }) as HookCarrier;

function warnings(preDrain: HookSpec[], carrier: HookCarrier = MAPI, obj: KubeObject = machine({ preDrain })) {
  return capiMigrationWarnings(carrier, carrier.read(obj));
}

describe('capiMigrationWarnings', () => {
  const P = 'spec.lifecycleHooks.preDrain[0].name';
  const cases: Array<[string, string, string[]]> = [
    ['a plain CamelCase name migrates as is', 'EtcdQuorumOperator', []],
    ['a name of 63 characters migrates', 'H'.repeat(63), []],
    [
      'a DNS-prefixed name gives the annotation key a second /',
      'storage.example.com/MigrateVolumes',
      [
        `${P}: Invalid value: "storage.example.com/MigrateVolumes": cannot become the Cluster API hook annotation "${PRE_DRAIN}/storage.example.com/MigrateVolumes": ${TWO_SLASHES}`,
      ],
    ],
    [
      'a name of 64 characters exceeds the name part limit',
      'H'.repeat(64),
      [
        `${P}: Invalid value: "${'H'.repeat(64)}": cannot become the Cluster API hook annotation "${PRE_DRAIN}/${'H'.repeat(64)}": name part must be no more than 63 bytes`,
      ],
    ],
    ["a name Machine API rejects is hook-naming's to report", 'a b', []],
  ];
  for (const [title, name, expected] of cases) {
    test(title, () =>
      assert.deepEqual(
        warnings([{ name, owner: 'storage-team' }]).map((v) => v.message),
        expected,
      ),
    );
  }

  test('the warning names the hook and suggests a name', () => {
    const [v] = warnings([{ name: 'storage.example.com/MigrateVolumes', owner: 'storage-team' }]);
    assert.deepEqual(
      [v?.rule, v?.path, v?.hook, v?.key],
      [
        'capi-migration',
        'spec.lifecycleHooks.preDrain[0].name',
        { stage: 'preDrain', name: 'storage.example.com/MigrateVolumes', owner: 'storage-team' },
        'capi-migration:preDrain:"storage.example.com/MigrateVolumes"',
      ],
    );
    assert.equal(
      v?.fix,
      'before migrating to Cluster API, rename the hook to a name without \'/\' of at most 63 characters (e.g. "MigrateVolumes"), and update "storage-team", which removes it by name',
    );
  });

  test('MachineSet templates are checked too', () => {
    const ms = carrierFor({ group: 'machine.openshift.io', version: 'v1beta1', kind: 'MachineSet' }) as HookCarrier;
    const obj = {
      spec: { template: { spec: { lifecycleHooks: { preTerminate: [{ name: 'example.com/Hook', owner: 'team' }] } } } },
    };
    assert.deepEqual(
      warnings([], ms, obj).map((v) => v.path),
      ['spec.template.spec.lifecycleHooks.preTerminate[0].name'],
    );
  });

  test('Cluster API objects have nothing to migrate', () => {
    const capi = carrierFor({ group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Machine' }) as HookCarrier;
    assert.deepEqual(warnings([], capi, capiMachine()), []);
  });

  test('advisory: the webhook never reports it, and policies default it to warn', () => {
    const d = evaluate(
      DEFAULT_POLICY,
      reviewInput({
        operation: 'CREATE',
        object: machine({
          role: 'worker',
          preDrain: [{ name: 'storage.example.com/MigrateVolumes', owner: 'storage-team' }],
        }),
      }),
    );
    assert.deepEqual([d.allowed, d.denials.length, d.warnings.length], [true, 0, 0]);
    assert.equal(DEFAULT_POLICY.enforcement['capi-migration'], 'warn');
  });
});
