// `hookkeeper validate` (offline, in process) and the live webhook judge the same manifests the same way: allowed
// or denied, the same message after the API server's prefix, the same warnings, the same mutation; and
// `validate --crd` with this suite's CRDs refuses what the API server's schema refuses, in its words.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import YAML from 'yaml';
import { shortWarning } from '../../../src/admission/response.js';
import type { KubeObject } from '../../../src/core/types.js';
import type { ObjectResult, ValidateReport } from '../../../src/transports/validate/report.js';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../../testing/control-plane/machines.js';
import { cli } from '../../helpers/cli.js';
import type { IdentityName } from '../../../testing/control-plane/identities.js';
import {
  CREATE_DENIAL_PREFIX,
  DENIAL_PREFIX,
  rejected,
  toRejection,
  type Written,
} from '../../../testing/control-plane/kube.js';
import type { E2EEnv, Scenario } from '../harness/suite.js';
import { hooksOf, metadataOf } from './helpers.js';
import { applyPatch } from '../../helpers/json-patch.js';

/** What a client of the API server learns about a request. */
interface Verdict {
  allowed: boolean;
  /** The denial after the API server's prefix. */
  message?: string;
  warnings: string[];
}

/**
 * validate's result as the API server would relay the webhook's: denials joined with "; ", notices and warn findings
 * as (shortened) warnings.
 */
function offlineVerdict(r: ObjectResult): Verdict {
  const findings = r.findings;
  const deny = findings.filter((f) => f.severity === 'deny');
  return {
    allowed: deny.length === 0,
    ...(deny.length === 0 ? {} : { message: deny.map((f) => f.message).join('; ') }),
    warnings: [
      ...r.notices,
      ...findings.filter((f) => f.severity === 'warn').map((f) => `${f.rule}: ${f.message}`),
    ].map(shortWarning),
  };
}

async function liveVerdict(
  request: () => Promise<Written>,
  prefix: string,
): Promise<Verdict & { object?: KubeObject }> {
  try {
    const { object, warnings } = await request();
    return { allowed: true, warnings, object };
  } catch (err) {
    const refusal = toRejection(err);
    assert.equal(refusal.by, 'webhook', refusal.message);
    assert.ok(refusal.message.startsWith(prefix), refusal.message);
    return { allowed: false, message: refusal.message.slice(prefix.length), warnings: refusal.warnings };
  }
}

/** `hookkeeper validate --output json` as this identity; exit code 0 when allowed, 1 when denied. */
async function validate(
  env: E2EEnv,
  as: IdentityName,
  args: string[],
): Promise<{ code: number; report: ValidateReport }> {
  const id = env.plane.identities[as];
  // The API server adds system:authenticated to every authenticated user's groups.
  const groups = [...id.groups, 'system:authenticated'].flatMap((g) => ['--as-group', g]);
  const run = await cli(['validate', '--output', 'json', '--as', id.username, ...groups, ...args]);
  assert.ok(run.code === 0 || run.code === 1, `validate exited ${run.code}: ${run.stderr}`);
  return { code: run.code, report: JSON.parse(run.stdout) as ValidateReport };
}

function only(report: ValidateReport): ObjectResult {
  assert.equal(report.results.length, 1, JSON.stringify(report.results));
  return report.results[0] as ObjectResult;
}

interface CreateCase {
  title: string;
  machine: KubeObject;
  allowed: boolean;
}

const CREATES: readonly CreateCase[] = [
  {
    title: 'a valid worker Machine',
    machine: openshiftMachine({
      name: 'validate-worker',
      role: 'worker',
      preDrain: [{ name: 'example.com/DrainGate', owner: 'drain-team' }],
    }),
    allowed: true,
  },
  {
    title: 'the reserved etcd hook name with another owner',
    machine: openshiftMachine({ name: 'validate-reserved', preDrain: [{ name: ETCD_HOOK.name, owner: 'someone' }] }),
    allowed: false,
  },
  {
    title: 'one hook name with different owners in preDrain and preTerminate',
    machine: openshiftMachine({
      name: 'validate-cross-stage',
      preDrain: [{ name: 'example.com/Gate', owner: 'team-a' }],
      preTerminate: [{ name: 'example.com/Gate', owner: 'team-b' }],
    }),
    allowed: false,
  },
];

export const validateAgreementScenarios: Scenario = (env) => {
  describe('hookkeeper validate agrees with the live webhook', () => {
    let dir = '';
    const file = async (name: string, docs: readonly KubeObject[]): Promise<string> => {
      const path = join(dir, name);
      await writeFile(path, docs.map((d) => YAML.stringify(d)).join('---\n'));
      return path;
    };

    before(() => {
      dir = join(env().plane.dir, 'validate');
      mkdirSync(dir, { recursive: true });
    });

    for (const c of CREATES) {
      test(`create: ${c.title}: ${c.allowed ? 'allowed by both' : 'denied by both, with the same message'}`, async () => {
        const e = env();
        const name = String(metadataOf(c.machine)['name']);
        const { code, report } = await validate(e, 'machineApi', [await file(`${name}.yaml`, [c.machine])]);
        const offline = offlineVerdict(only(report));
        const { object: _object, ...live } = await liveVerdict(
          () => e.machines('machineApi').create(MACHINE_NAMESPACE, c.machine, { dryRun: true }),
          CREATE_DENIAL_PREFIX,
        );
        assert.deepEqual(offline, live);
        assert.equal(live.allowed, c.allowed);
        assert.equal(code, c.allowed ? 0 : 1);
      });
    }

    test("create: a control-plane Machine: validate's patch gives the hooks the live mutating webhook stores", async () => {
      const e = env();
      const machine = openshiftMachine({ name: 'validate-control-plane', role: 'master' });
      const { report } = await validate(e, 'machineApi', [
        '--show-patches',
        await file('validate-control-plane.yaml', [machine]),
      ]);
      const result = only(report);
      const patched = applyPatch(machine, result.patch);
      const live = await liveVerdict(
        () => e.machines('machineApi').create(MACHINE_NAMESPACE, machine, { dryRun: true }),
        CREATE_DENIAL_PREFIX,
      );
      assert.ok(live.object);
      assert.deepEqual(hooksOf(live.object, 'preDrain'), [ETCD_HOOK]);
      assert.deepEqual(
        (patched['spec'] as Record<string, unknown>)['lifecycleHooks'],
        (live.object['spec'] as Record<string, unknown>)['lifecycleHooks'],
      );
    });

    describe('update: removing the etcd hook, judged with --old against the stored Machine', () => {
      let oldFile = '';
      let newFile = '';
      let updated: KubeObject = {};

      before(async () => {
        const machines = env().machines('machineApi');
        await machines.create(MACHINE_NAMESPACE, openshiftMachine({ name: 'validate-removal', role: 'master' }));
        const stored = await machines.get(MACHINE_NAMESPACE, 'validate-removal');
        updated = structuredClone(stored);
        const hooks = (updated['spec'] as { lifecycleHooks: { preDrain: unknown[] } }).lifecycleHooks;
        hooks.preDrain = hooksOf(stored, 'preDrain').filter((h) => h.name !== ETCD_HOOK.name);
        oldFile = await file('validate-removal.old.yaml', [stored]);
        newFile = await file('validate-removal.yaml', [updated]);
      });

      const cases: ReadonlyArray<[IdentityName, string, boolean]> = [
        ['alice', 'an ordinary user', false],
        ['etcdOperator', 'the etcd operator', true],
        ['admin', 'a break-glass admin (with the warning)', true],
      ];
      for (const [as, who, allowed] of cases) {
        test(`as ${who}: ${allowed ? 'allowed' : 'denied'} by both, with the same ${allowed ? 'warnings' : 'message'}`, async () => {
          const e = env();
          const { code, report } = await validate(e, as, ['--old', oldFile, newFile]);
          const result = only(report);
          assert.equal(result.operation, 'UPDATE');
          const { object: _object, ...live } = await liveVerdict(
            () => e.machines(as).replace(MACHINE_NAMESPACE, updated, { dryRun: true }),
            DENIAL_PREFIX,
          );
          assert.deepEqual(offlineVerdict(result), live);
          assert.equal(live.allowed, allowed);
          assert.equal(code, allowed ? 0 : 1);
          if (as === 'admin') assert.equal(live.warnings.length, 1);
        });
      }
    });

    describe('validate --crd with the CRDs this suite installed', () => {
      // validate reports a problem once: under the hook rule when it words it as the API server does, else as crd-schema.
      const SCHEMA_CASES: ReadonlyArray<[string, KubeObject, string]> = [
        [
          'a hook name outside the pattern',
          openshiftMachine({ name: 'validate-bad-pattern', preTerminate: [{ name: 'Not A Hook!', owner: 'team-a' }] }),
          'hook-naming',
        ],
        [
          'a duplicate hook name in one stage',
          openshiftMachine({
            name: 'validate-duplicate',
            preDrain: [
              { name: 'example.com/Gate', owner: 'team-a' },
              { name: 'example.com/Gate', owner: 'team-b' },
            ],
          }),
          'single-owner',
        ],
        [
          'a hook owner that is not a string',
          openshiftMachine({
            name: 'validate-owner-type',
            preDrain: [{ name: 'DrainGate', owner: 12345 as unknown as string }],
          }),
          'hook-naming',
        ],
        // Only the schema knows this field: reported under crd-schema, in the API server's words.
        [
          'a providerID that is not a string',
          {
            ...openshiftMachine({ name: 'validate-provider-type' }),
            spec: {
              ...(openshiftMachine({ name: 'validate-provider-type' })['spec'] as Record<string, unknown>),
              providerID: 12345,
            },
          },
          'crd-schema',
        ],
      ];
      for (const [title, machine, rule] of SCHEMA_CASES) {
        test(`${title}: refused by the API server's schema, and by validate in the same words (rule ${rule})`, async () => {
          const e = env();
          const name = String(metadataOf(machine)['name']);
          const { code, report } = await validate(e, 'machineApi', [
            ...e.crds.files.flatMap((f) => ['--crd', f]),
            await file(`${name}.yaml`, [machine]),
          ]);
          assert.equal(code, 1);
          const refusal = await rejected(() =>
            e.machines('machineApi').create(MACHINE_NAMESPACE, machine, { dryRun: true }),
          );
          assert.equal(refusal.by, 'schema', refusal.message);
          const prefix = `Machine.machine.openshift.io "${name}" is invalid: `;
          assert.ok(refusal.message.startsWith(prefix), refusal.message);
          const detail = refusal.message.slice(prefix.length);
          const same = only(report).findings.filter((f) => f.severity === 'deny' && f.message === detail);
          assert.deepEqual(
            same.map((f) => f.rule),
            [rule],
            `${detail}\nvalidate: ${JSON.stringify(only(report).findings)}`,
          );
        });
      }
    });
  });
};
