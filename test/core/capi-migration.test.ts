// capi-migration's rule: Machine API hooks whose names cannot become Cluster API hook annotation keys.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import { capiMigrationRule } from '../../src/rules/capi-migration/rule.js';
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

/** The rule's violations for an object that takes part in the migration (it names an authoritative API). */
function warnings(preDrain: HookSpec[], carrier: HookCarrier = MAPI, obj: KubeObject = machine({ preDrain })) {
  const object = { ...obj, status: { authoritativeAPI: 'MachineAPI' } };
  const input = { ...reviewInput({ operation: 'CREATE', object: machine({}) }), object };
  const hooks = carrier.read(object);
  const ctx = { policy: DEFAULT_POLICY, input, carrier, hooks, oldHooks: { hooks: [], problems: [] } };
  return capiMigrationRule.validate?.(ctx).violations ?? [];
}

describe('capi-migration on an object that takes part in the migration', () => {
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
        'capi-migration:preDrain:"storage.example.com/MigrateVolumes":"storage-team"',
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

  test('policies default it to warn', () => assert.equal(DEFAULT_POLICY.enforcement['capi-migration'], 'warn'));
});

describe('capi-migration at admission: Machine API objects that take part in the migration', () => {
  const HOOK = { name: 'storage.example.com/MigrateVolumes', owner: 'storage-team' };
  const create = (obj: KubeObject, policy = DEFAULT_POLICY) =>
    evaluate(policy, reviewInput({ operation: 'CREATE', object: obj }));
  const warned = (d: ReturnType<typeof evaluate>) => d.warnings.filter((w) => w.rule === 'capi-migration').length;
  const withFields = (obj: KubeObject, where: 'spec' | 'status'): KubeObject => ({
    ...obj,
    [where]: { ...(obj[where] as object | undefined), authoritativeAPI: 'MachineAPI' },
  });
  const noMigration = { ...DEFAULT_POLICY, migration: { ...DEFAULT_POLICY.migration, synchronizers: [] } };

  test('the migration the policy configures covers its Machine API namespace', () => {
    const d = create(machine({ role: 'worker', preDrain: [HOOK] }));
    assert.deepEqual([d.allowed, warned(d)], [true, 1]);
    assert.equal(warned(create(machine({ role: 'worker', preDrain: [HOOK], namespace: 'elsewhere' }))), 0);
  });

  test('an object naming its authoritative API takes part wherever it is', () => {
    const other = machine({ role: 'worker', preDrain: [HOOK], namespace: 'elsewhere' });
    assert.equal(warned(create(withFields(other, 'spec'))), 1);
    assert.equal(warned(create(withFields(other, 'status'))), 1);
    assert.equal(warned(create(withFields(other, 'spec'), noMigration)), 1);
  });

  test('without a configured migration or its fields, nothing takes part, in validate as at admission', () => {
    const obj = machine({ role: 'worker', preDrain: [HOOK] });
    assert.equal(warned(create(obj, noMigration)), 0);
    const offline = (policy: typeof DEFAULT_POLICY) =>
      evaluate(policy, { ...reviewInput({ operation: 'CREATE', object: obj }), source: 'validate' });
    assert.equal(warned(offline(noMigration)), 0);
    assert.equal(warned(offline(DEFAULT_POLICY)), 1);
  });

  test('under deny a new such hook is refused and a stored one only warned, so its owner may still remove others', () => {
    const deny = {
      ...DEFAULT_POLICY,
      enforcement: { ...DEFAULT_POLICY.enforcement, 'capi-migration': 'deny' as const },
    };
    const added = evaluate(
      deny,
      reviewInput({ operation: 'CREATE', object: machine({ role: 'worker', preDrain: [HOOK] }) }),
    );
    assert.deepEqual([added.allowed, added.denials.map((v) => v.rule)], [false, ['capi-migration']]);
    const other = { name: 'OtherHook', owner: 'storage-team' };
    const kept = evaluate(
      deny,
      reviewInput({
        operation: 'UPDATE',
        oldObject: machine({ role: 'worker', preDrain: [HOOK, other] }),
        object: machine({ role: 'worker', preDrain: [HOOK] }),
        user: { username: 'system:serviceaccount:storage:operator', groups: [] },
      }),
    );
    assert.deepEqual([kept.denials.filter((v) => v.rule === 'capi-migration').length, warned(kept)], [0, 1]);
  });
});
