// Static self-protection of the CRDs that carry hooks: a DELETE, or a schema change that stops a version keeping the
// hook fields (the API server prunes what a schema lacks, so stored hooks vanish at the next write), is refused to
// all but break-glass; upgrades that keep the fields pass. Evaluated in process on the rendered static policies; the
// real kube-apiserver's side is test/e2e/static-manifests.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { KubeObject, ReviewInput } from '../../src/core/types.js';
import { versionsWithoutHooks } from '../../src/core/hook-crds.js';
import { versionKeeps } from '../../src/compilers/native/hook-schema.js';
import { staticManifests } from '../../src/compilers/native/static.js';
import { DEFAULT_STATIC_ROOT, STATIC_DIRS, STATIC_FILE } from '../../src/compilers/native/static-layout.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';
import { admit, compilePolicies, conditionHolds, type NativeVerdict } from './evaluator/admission.js';

const policies = compilePolicies(
  (
    staticManifests(DEFAULT_POLICY, {
      k8sVersion: '1.37',
      root: DEFAULT_STATIC_ROOT,
      selfProtection: { webhookConfigurations: ['hookkeeper'] },
    }).files.find((f) => f.path === `${STATIC_DIRS.validating}/${STATIC_FILE}`)?.documents ?? []
  ).map((d) => d as KubeObject),
);

const CLUSTER_ADMIN = { username: 'cluster-admin-user', groups: ['system:authenticated'] };
const BREAK_GLASS = { username: 'root', groups: ['system:masters', 'system:authenticated'] };
type Who = typeof CLUSTER_ADMIN;

function crdReview(
  operation: 'UPDATE' | 'DELETE',
  old: KubeObject,
  object: KubeObject | null,
  who: Who,
): NativeVerdict {
  const input: ReviewInput = {
    operation,
    kind: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
    name: (old['metadata'] as { name: string }).name,
    object,
    oldObject: old,
    userInfo: who,
    dryRun: false,
  };
  return admit(policies, input, { authorize: () => true });
}

function readCrd(file: string): KubeObject {
  const doc = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .find((d) => d?.['kind'] === 'CustomResourceDefinition');
  assert.ok(doc, file);
  return doc;
}

const TEST_CRDS = join(import.meta.dirname, '..', 'e2e', 'crds');
const testCrd = (file: string) => readCrd(join(TEST_CRDS, file));

/** A deep copy changed by fn. */
function changed(crd: KubeObject, fn: (c: CrdShape) => void): KubeObject {
  const copy = structuredClone(crd) as unknown as CrdShape;
  fn(copy);
  return copy as unknown as KubeObject;
}
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  description?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}
interface CrdShape {
  metadata: { name: string };
  spec: { versions: Array<{ name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: Schema } }> };
}
const at = (s: Schema, ...path: string[]): Schema =>
  path.reduce<Schema>((n, k) => {
    const next = n.properties?.[k];
    assert.ok(next, `no ${k} in the schema`);
    return next;
  }, s);
const root = (c: CrdShape, version = 0): Schema => {
  const v = c.spec.versions[version];
  assert.ok(v);
  return v.schema.openAPIV3Schema;
};

function assertRefused(verdict: NativeVerdict, pattern: RegExp): void {
  assert.equal(verdict.allowed, false, 'refused');
  assert.equal(verdict.denial?.policy, 'hookkeeper-hook-schema.static.k8s.io');
  assert.match(verdict.denial?.message ?? '', pattern);
}
function assertPasses(verdict: NativeVerdict): void {
  assert.equal(verdict.allowed, true, verdict.denial?.message);
  assert.deepEqual(verdict.warnings, []);
}
function assertBreakGlass(verdict: NativeVerdict, pattern: RegExp): void {
  assert.equal(verdict.allowed, true, verdict.denial?.message);
  assert.ok(
    verdict.warnings.some(
      (w) => w.policy === 'hookkeeper-hook-schema-break-glass.static.k8s.io' && pattern.test(w.message),
    ),
    JSON.stringify(verdict.warnings),
  );
}

const HOOK_CRDS = [
  'machines.machine.openshift.io',
  'machinesets.machine.openshift.io',
  'controlplanemachinesets.machine.openshift.io',
  'machines.cluster.x-k8s.io',
  'machinesets.cluster.x-k8s.io',
  'machinedeployments.cluster.x-k8s.io',
];
const named = (name: string): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: {
    group: name.split('.').slice(1).join('.'),
    names: { kind: 'Kind', plural: name.split('.')[0] },
    versions: [],
  },
});

describe('static self-protection of the CRDs that carry hooks', () => {
  test('DELETE of every hook-carrying CRD is refused to a cluster-admin, allowed to break-glass with a warning', () => {
    for (const name of HOOK_CRDS) {
      assertRefused(
        crdReview('DELETE', named(name), null, CLUSTER_ADMIN),
        new RegExp(
          `^hookkeeper self-protection: delete customresourcedefinitions/${name.replaceAll('.', '\\.')} is refused: deleting it deletes every Kind with its lifecycle hooks; only break-glass: group system:masters may$`,
        ),
      );
      assertBreakGlass(
        crdReview('DELETE', named(name), null, BREAK_GLASS),
        new RegExp(`^break-glass: root may delete customresourcedefinitions/${name.replaceAll('.', '\\.')}`),
      );
    }
    assertPasses(crdReview('DELETE', named('widgets.example.com'), null, CLUSTER_ADMIN));
  });

  const machine = testCrd('machine.openshift.io_machines.yaml');
  // The test CRD preserves unknown fields under spec (so a removed lifecycleHooks is kept untyped): this one does not.
  const strict = changed(machine, (c) => delete root(c).properties?.['spec']?.['x-kubernetes-preserve-unknown-fields']);
  const hooksOf = (c: CrdShape) => at(root(c), 'spec', 'lifecycleHooks');

  const cases: [string, (c: CrdShape) => void, RegExp][] = [
    [
      'lifecycleHooks removed',
      (c) => delete at(root(c), 'spec').properties?.['lifecycleHooks'],
      /spec\.lifecycleHooks/,
    ],
    ['preTerminate removed', (c) => delete hooksOf(c).properties?.['preTerminate'], /version v1beta1/],
    ['lifecycleHooks retyped', (c) => (hooksOf(c).type = 'string'), /version v1beta1/],
    ['preDrain retyped', (c) => (at(hooksOf(c), 'preDrain').type = 'object'), /version v1beta1/],
    ['hook entries retyped', (c) => ((at(hooksOf(c), 'preDrain').items as Schema).type = 'string'), /v1beta1/],
    ['owner removed', (c) => delete at(hooksOf(c), 'preDrain').items?.properties?.['owner'], /v1beta1/],
    ['name retyped', (c) => (at(at(hooksOf(c), 'preTerminate').items as Schema, 'name').type = 'integer'), /v1beta1/],
    [
      'a new storage version without the hooks',
      (c) => {
        const [v] = c.spec.versions;
        assert.ok(v);
        v.storage = false;
        const bare = structuredClone(v);
        delete at(bare.schema.openAPIV3Schema, 'spec').properties?.['lifecycleHooks'];
        c.spec.versions.push({ ...bare, name: 'v1', storage: true });
      },
      /version v1\b/,
    ],
  ];

  test('a schema change that removes or retypes a hook field is refused, naming the version; break-glass passes', () => {
    for (const [what, fn, words] of cases) {
      const after = changed(strict, fn);
      const verdict = crdReview('UPDATE', strict, after, CLUSTER_ADMIN);
      assertRefused(
        verdict,
        /^hookkeeper self-protection: update customresourcedefinitions\/machines\.machine\.openshift\.io is refused: /,
      );
      assert.match(verdict.denial?.message ?? '', words, what);
      assertBreakGlass(
        crdReview('UPDATE', strict, after, BREAK_GLASS),
        /^break-glass: root may update customresourcedefinitions\/machines\.machine\.openshift\.io/,
      );
    }
  });

  test('the template paths of MachineSets and ControlPlaneMachineSets are held alike', () => {
    const sets = changed(testCrd('machine.openshift.io_machinesets.yaml'), (c) => {
      for (const s of [
        root(c),
        at(root(c), 'spec'),
        at(root(c), 'spec', 'template'),
        at(root(c), 'spec', 'template', 'spec'),
      ])
        delete s['x-kubernetes-preserve-unknown-fields'];
    });
    const lost = changed(sets, (c) => delete at(root(c), 'spec', 'template', 'spec').properties?.['lifecycleHooks']);
    assertRefused(crdReview('UPDATE', sets, lost, CLUSTER_ADMIN), /machinesets\.machine\.openshift\.io/);
    const cpms = testCrd('machine.openshift.io_controlplanemachinesets.yaml');
    const path = ['spec', 'template', 'machines_v1beta1_machine_openshift_io', 'spec'];
    const retyped = changed(cpms, (c) => (at(root(c), ...path, 'lifecycleHooks').type = 'array'));
    assertRefused(crdReview('UPDATE', cpms, retyped, CLUSTER_ADMIN), /controlplanemachinesets\.machine\.openshift\.io/);
    // The same removal where a parent preserves unknown fields: the hooks survive, untyped.
    const kept = changed(cpms, (c) => delete at(root(c), ...path).properties?.['lifecycleHooks']);
    assertPasses(crdReview('UPDATE', cpms, kept, CLUSTER_ADMIN));
  });

  test('changes that keep the hooks pass: itself, a parent preserving unknown fields, other fields, Cluster API', () => {
    assertPasses(crdReview('UPDATE', strict, strict, CLUSTER_ADMIN));
    assertPasses(crdReview('UPDATE', machine, machine, CLUSTER_ADMIN));
    const described = changed(strict, (c) => (hooksOf(c).description = 'hooks'));
    assertPasses(crdReview('UPDATE', strict, described, CLUSTER_ADMIN));
    const preserved = changed(strict, (c) => {
      const spec = at(root(c), 'spec');
      spec['x-kubernetes-preserve-unknown-fields'] = true;
      delete spec.properties?.['lifecycleHooks'];
    });
    assertPasses(crdReview('UPDATE', strict, preserved, CLUSTER_ADMIN));
    // A version that did not keep the hooks before is not made to: hookkeeper refuses losses, not old schemas.
    const noHooks = changed(strict, (c) => delete at(root(c), 'spec').properties?.['lifecycleHooks']);
    assertPasses(crdReview('UPDATE', noHooks, noHooks, CLUSTER_ADMIN));
    // Cluster API keeps hooks in metadata.annotations, which no schema prunes: its schema changes are not judged.
    const capi = testCrd('cluster.x-k8s.io_machines.yaml');
    const bare = changed(capi, (c) => {
      for (const v of c.spec.versions) v.schema.openAPIV3Schema = { type: 'object' };
    });
    assertPasses(crdReview('UPDATE', capi, bare, CLUSTER_ADMIN));
    // Another CRD is not judged at all.
    const other = changed(strict, (c) => (c.metadata.name = 'machines.example.com'));
    assertPasses(
      crdReview(
        'UPDATE',
        other,
        changed(other, (c) => (hooksOf(c).type = 'string')),
        CLUSTER_ADMIN,
      ),
    );
  });

  test("the audit's TypeScript judgement agrees with the CEL, version by version", () => {
    const variants: [KubeObject, readonly string[]][] = [
      [machine, ['spec', 'lifecycleHooks']],
      [strict, ['spec', 'lifecycleHooks']],
      ...cases.map(([, fn]): [KubeObject, readonly string[]] => [changed(strict, fn), ['spec', 'lifecycleHooks']]),
      [
        changed(strict, (c) => {
          at(root(c), 'spec')['x-kubernetes-preserve-unknown-fields'] = true;
          delete at(root(c), 'spec').properties?.['lifecycleHooks'];
        }),
        ['spec', 'lifecycleHooks'],
      ],
      [testCrd('machine.openshift.io_machinesets.yaml'), ['spec', 'template', 'spec', 'lifecycleHooks']],
      [
        testCrd('machine.openshift.io_controlplanemachinesets.yaml'),
        ['spec', 'template', 'machines_v1beta1_machine_openshift_io', 'spec', 'lifecycleHooks'],
      ],
    ];
    let without = 0;
    for (const [crd, path] of variants) {
      const versions = (crd as unknown as CrdShape).spec.versions;
      const input: ReviewInput = {
        operation: 'CREATE',
        kind: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
        object: crd,
        oldObject: null,
        userInfo: CLUSTER_ADMIN,
        dryRun: false,
      };
      const byCel = versions
        .filter((_, i) => !conditionHolds(versionKeeps('object', `object.spec.versions[${i}]`, path), input))
        .map((v) => v.name);
      assert.deepEqual(versionsWithoutHooks(crd, path), byCel);
      without += byCel.length;
    }
    assert.equal(without, cases.length, 'each loss case has one version without the hooks');
  });

  const settings = readControlPlaneSettings();
  const SHARED = settings.sharedCrdDir;
  const shared = existsSync(SHARED);
  test(
    'upstream CRDs over themselves and their newer versions pass (../shared/crds)',
    { skip: shared || settings.ci ? false : `${SHARED} does not exist` },
    () => {
      assert.ok(shared, `${SHARED} does not exist (set HOOKKEEPER_E2E_SHARED_CRDS)`);
      const up = (f: string) => readCrd(join(SHARED, f));
      const steps: [KubeObject, KubeObject][] = [
        [machine, up('0000_10_machine-api_01_machines-Default.crd.yaml')],
        [testCrd('machine.openshift.io_machinesets.yaml'), up('0000_10_machine-api_01_machinesets-Default.crd.yaml')],
        [testCrd('cluster.x-k8s.io_machines.yaml'), up('cluster-api-v1.10.10/cluster.x-k8s.io_machines.yaml')],
      ];
      for (const kind of ['machines', 'machinesets']) {
        const def = up(`0000_10_machine-api_01_${kind}-Default.crd.yaml`);
        const tech = up(`0000_10_machine-api_01_${kind}-TechPreviewNoUpgrade.crd.yaml`);
        steps.push([def, def], [def, tech], [tech, tech], [tech, def]);
      }
      for (const kind of ['machines', 'machinesets']) {
        const old = up(`cluster-api-v1.10.10/cluster.x-k8s.io_${kind}.yaml`);
        const current = up(`cluster.x-k8s.io_${kind}.yaml`);
        steps.push([old, old], [old, current], [current, current]);
      }
      for (const [old, next] of steps) assertPasses(crdReview('UPDATE', old, next, CLUSTER_ADMIN));
      // And the upstream schema losing its hooks is refused (no preserve-unknown-fields above them there).
      const def = up('0000_10_machine-api_01_machines-Default.crd.yaml');
      const lost = changed(def, (c) => delete at(root(c), 'spec').properties?.['lifecycleHooks']);
      assertRefused(crdReview('UPDATE', def, lost, CLUSTER_ADMIN), /version v1beta1/);
    },
  );
});
