// Rule hook-naming for Cluster API: a hook annotation key must be a key the API server accepts, said in its words.
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
  PRE_DRAIN,
  PRE_TERMINATE,
} from '../fixtures/capi.js';

const REGEX = "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'";
const SHAPE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is " +
  REGEX +
  ')';
const NAME_SHAPE = `name part ${SHAPE}`;
const TWO_SLASHES = `a qualified name ${SHAPE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`;
const policy = capiPolicy();

function create(obj: KubeObject) {
  return handle('validate', policy, capiInput({ operation: 'CREATE', object: obj, user: CAPI_USERS.capi }));
}

function denialsForKey(
  key: string,
  owner: unknown = 'storage.example.com/volume-migrator',
  version: 'v1beta1' | 'v1beta2' = 'v1beta1',
): string[] {
  return create(capiMachine({ role: 'worker', version, annotations: { [key]: owner } })).decision.denials.map(
    (v) => v.message,
  );
}

const invalidKey = (key: string, detail: string) =>
  `metadata.annotations: Invalid value: ${JSON.stringify(key)}: ${detail}`;

describe('hook-naming for Cluster API hook annotations', () => {
  const cases: Array<[string, string, string[]]> = [
    ['a lowercase name', `${PRE_DRAIN}/migrate-volumes`, []],
    ['a CamelCase name carried over from Machine API', `${PRE_DRAIN}/MigrateVolumes`, []],
    ['dots, dashes and underscores inside', `${PRE_TERMINATE}/a.b-c_d`, []],
    ['a name of 63 characters', `${PRE_DRAIN}/${'h'.repeat(63)}`, []],
    [
      'a name of 64 characters',
      `${PRE_DRAIN}/${'h'.repeat(64)}`,
      [invalidKey(`${PRE_DRAIN}/${'h'.repeat(64)}`, 'name part must be no more than 63 bytes')],
    ],
    ['a hook named a/b gives the key a second /', `${PRE_DRAIN}/a/b`, [invalidKey(`${PRE_DRAIN}/a/b`, TWO_SLASHES)]],
    [
      'a DNS-prefixed Machine API name',
      `${PRE_DRAIN}/storage.example.com/MigrateVolumes`,
      [invalidKey(`${PRE_DRAIN}/storage.example.com/MigrateVolumes`, TWO_SLASHES)],
    ],
    ['a name ending in a dash', `${PRE_DRAIN}/migrate-`, [invalidKey(`${PRE_DRAIN}/migrate-`, NAME_SHAPE)]],
    [
      'a name with a space',
      `${PRE_TERMINATE}/migrate volumes`,
      [invalidKey(`${PRE_TERMINATE}/migrate volumes`, NAME_SHAPE)],
    ],
    [
      'an empty name',
      `${PRE_DRAIN}/`,
      [invalidKey(`${PRE_DRAIN}/`, 'name part must be non-empty'), invalidKey(`${PRE_DRAIN}/`, NAME_SHAPE)],
    ],
    [
      'the bare prefix: a valid key, but a hook without a name',
      PRE_DRAIN,
      [
        invalidKey(
          PRE_DRAIN,
          `an annotation key starting with "${PRE_DRAIN}" declares a preDrain hook and must be "${PRE_DRAIN}/<name>"`,
        ),
      ],
    ],
    [
      'a longer prefix is still a hook to the Machine controller',
      `${PRE_DRAIN}s/x`,
      [
        invalidKey(
          `${PRE_DRAIN}s/x`,
          `an annotation key starting with "${PRE_DRAIN}" declares a preDrain hook and must be "${PRE_DRAIN}/<name>"`,
        ),
      ],
    ],
    [
      'a prefix the API server rejects',
      `${PRE_DRAIN}_x/y`,
      [
        invalidKey(
          `${PRE_DRAIN}_x/y`,
          "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
        invalidKey(
          `${PRE_DRAIN}_x/y`,
          `an annotation key starting with "${PRE_DRAIN}" declares a preDrain hook and must be "${PRE_DRAIN}/<name>"`,
        ),
      ],
    ],
    ["other annotations are not hookkeeper's to judge", 'example.com/a/b', []],
  ];
  for (const [title, key, expected] of cases) {
    test(title, () => {
      assert.deepEqual(denialsForKey(key), expected);
      assert.deepEqual(denialsForKey(key, 'storage.example.com/volume-migrator', 'v1beta2'), expected);
    });
  }

  test('the owner may be empty, or any string', () => {
    assert.deepEqual(denialsForKey(`${PRE_DRAIN}/x`, ''), []);
    assert.deepEqual(denialsForKey(`${PRE_DRAIN}/x`, 'Team Ops / on-call #42 ✓'), []);
  });

  test('an owner that is not a string', () => {
    const path = `metadata.annotations[${PRE_DRAIN}/x]`;
    assert.deepEqual(denialsForKey(`${PRE_DRAIN}/x`, 42), [
      `${path}: Invalid value: "integer": ${path} in body must be of type string: "integer"`,
    ]);
  });

  test("the denial the client sees is the API server's message, and names how to fix it", () => {
    const out = create(capiMachine({ role: 'worker', annotations: { [`${PRE_DRAIN}/a/b`]: 'x' } }));
    assert.equal(out.result.allowed, false);
    assert.equal(out.result.status?.code, 403);
    assert.equal(out.result.status?.message, invalidKey(`${PRE_DRAIN}/a/b`, TWO_SLASHES));
    assert.match(
      out.decision.denials[0]?.fix ?? '',
      /no '\/' \(the annotation key is pre-drain\.delete\.hook\.machine\.cluster\.x-k8s\.io\/<name>\)/,
    );
    assert.deepEqual(out.decision.denials[0]?.hook, { stage: 'preDrain', name: 'a/b', owner: 'x' });
  });

  test('MachineSet and MachineDeployment templates get the same check (the API server does not check them)', () => {
    for (const kind of ['MachineSet', 'MachineDeployment'] as const) {
      for (const version of ['v1beta1', 'v1beta2'] as const) {
        const out = create(capiTemplate(kind, { [`${PRE_DRAIN}/a/b`]: 'x', [`${PRE_TERMINATE}/ok`]: '' }, version));
        assert.deepEqual(
          out.decision.denials.map((v) => [v.path, v.message]),
          [
            [
              'spec.template.metadata.annotations',
              `spec.template.metadata.annotations: Invalid value: "${PRE_DRAIN}/a/b": ${TWO_SLASHES}`,
            ],
          ],
          `${kind} ${version}`,
        );
      }
    }
  });

  test('on UPDATE, a bad key the stored Machine already had is a warning, so unrelated edits go through', () => {
    const bad = { [`${PRE_DRAIN}/${'h'.repeat(64)}`]: 'x' };
    const old = capiMachine({ role: 'worker', annotations: bad });
    const next = capiMachine({
      role: 'worker',
      annotations: { ...bad, 'example.com/note': 'edited' },
      resourceVersion: '182799',
    });
    const out = handle(
      'validate',
      policy,
      capiInput({ operation: 'UPDATE', object: next, oldObject: old, user: CAPI_USERS.alice }),
    );
    assert.equal(out.result.allowed, true);
    assert.deepEqual(
      out.decision.warnings.map((v) => v.message),
      [invalidKey(`${PRE_DRAIN}/${'h'.repeat(64)}`, 'name part must be no more than 63 bytes')],
    );
  });
});
