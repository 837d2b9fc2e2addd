// Static admission manifests (`admission-policy render --static`) loaded by a real kube-apiserver from its disk:
// Kubernetes 1.37 (on by default) and 1.36 (behind its feature gate). The Machine groups run in static mode too
// (test/e2e/harness/admission-modes.ts); this file holds what only static manifests promise. No webhook runs here and
// every hookkeeper policy comes from files: protection from the first request, against a cluster-admin who is not
// break-glass, with break-glass warned and audited, a changed file reloaded and a broken one refused while the last
// good set stays.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AuditReport } from '../../src/transports/audit/report.js';
import { DEFAULT_POLICY } from '../../src/infrastructure/config/defaults.js';
import type { KubeObject } from '../../src/core/types.js';
import { renderNativePolicies } from '../../src/compilers/native/render.js';
import { manifestDirHash } from '../../src/compilers/deploy/static-files.js';
import { ETCD_HOOK, MACHINE_NAMESPACE, openshiftMachine } from '../../testing/control-plane/machines.js';
import { cli } from '../helpers/cli.js';
import { APISERVER_METRICS } from '../helpers/monitoring.js';
import { startControlPlane, type ControlPlane } from '../../testing/control-plane/control-plane.js';
import { ownCrdSet, readCrds, type CrdSet } from '../../testing/control-plane/crds.js';
import { rawRequest, type RawResponse } from '../../testing/control-plane/http.js';
import type { IdentityName } from '../../testing/control-plane/identities.js';
import {
  OPENSHIFT_MACHINES,
  parseWarnings,
  rejected,
  ResourceClient,
  warningTexts,
} from '../../testing/control-plane/kube.js';
import { pollUntil } from '../../testing/control-plane/processes.js';
import { readControlPlaneSettings } from '../../testing/control-plane/settings.js';
import { staticMetrics, type StaticMetrics } from '../../testing/control-plane/static-admission.js';
import { MAIN_K8S_VERSION, PREVIOUS_K8S_VERSION } from '../../testing/control-plane/versions.js';

const settings = readControlPlaneSettings();
const WEBHOOK_CONFIGURATION = 'hookkeeper-e2e';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const crdSet = (): CrdSet => {
  const own = ownCrdSet(settings.repoRoot);
  return { ...own, files: [...own.files, join(settings.repoRoot, 'webhook-config', 'base', 'hookowners-crd.yaml')] };
};

/** Renders the static files for this plane into dir (also the root the admission configuration names). */
async function renderStatic(
  dir: string,
  k8sVersion: string,
  policyFile?: string,
  /** null: the default name, hookkeeper. */
  webhookName: string | null = WEBHOOK_CONFIGURATION,
): Promise<void> {
  const run = await cli([
    'admission-policy',
    'render',
    '--static',
    dir,
    '--static-root',
    dir,
    '--k8s-version',
    k8sVersion,
    ...(webhookName !== null ? ['--webhook-name', webhookName] : []),
    ...(policyFile ? ['--config', policyFile] : []),
  ]);
  assert.equal(run.code, 0, run.stderr);
}

function api(plane: ControlPlane, as: IdentityName) {
  return (method: string, path: string, body?: unknown, contentType?: string): Promise<RawResponse> =>
    rawRequest({
      url: `${plane.server}${path}`,
      method,
      ca: plane.caPem,
      token: plane.identities[as].token,
      ...(body === undefined ? {} : { body }),
      ...(contentType ? { contentType } : {}),
      timeoutMs: 30_000,
    });
}

/** Upstream's CRDs (../shared/crds, HOOKKEEPER_E2E_SHARED_CRDS): CI=true fails without them, elsewhere they are skipped. */
const sharedCrds = {
  present: existsSync(settings.sharedCrdDir),
  skip: existsSync(settings.sharedCrdDir) || settings.ci ? false : `${settings.sharedCrdDir} does not exist`,
};

/**
 * `kubectl replace` (and the cluster-version operator's update): the file's CRD over the stored one, at its
 * resourceVersion, read again on a conflict (the CRD controllers write its status after each change).
 */
async function replaceCrd(plane: ControlPlane, as: IdentityName, file: string): Promise<RawResponse> {
  const [crd] = await readCrds([file]);
  assert.ok(crd?.metadata?.name, file);
  const path = `${CRDS}/${crd.metadata.name}`;
  for (let attempt = 1; ; attempt++) {
    const stored = JSON.parse((await api(plane, 'admin')('GET', path)).body) as {
      metadata: { resourceVersion: string };
    };
    const res = await api(plane, as)('PUT', path, {
      ...crd,
      metadata: { ...crd.metadata, resourceVersion: stored.metadata.resourceVersion },
    });
    if (res.status !== 409 || attempt === 5) return res;
  }
}

/** The API server metrics hookkeeper's shipped alerts and dashboard use: each family on this API server's /metrics. */
async function monitoredMetricsServed(plane: ControlPlane): Promise<void> {
  const res = await api(plane, 'admin')('GET', '/metrics');
  assert.equal(res.status, 200);
  const missing = APISERVER_METRICS.filter((m) => !res.body.includes(`\n# TYPE ${m} `));
  assert.deepEqual(missing, [], 'webhook-config/components/monitoring uses metrics this API server does not have');
}

const master = (name: string): KubeObject => openshiftMachine({ name, role: 'master' });
const removeEtcdHook = [{ op: 'remove', path: '/spec/lifecycleHooks/preDrain/0' }] as const;
const label = (key: string) => ({ metadata: { labels: { [key]: 'x' } } });

/** A new ClusterRoleBinding reaches the API server's RBAC cache a moment later: wait until it answers. */
async function untilClusterAdmin(plane: ControlPlane): Promise<void> {
  await pollUntil('the cluster-admin binding in force', 30_000, async () =>
    (await api(plane, 'clusterAdmin')('GET', CRDS)).status === 200 ? true : undefined,
  );
}

const CLUSTER_ADMIN_BINDING = (username: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'static-cluster-admin' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: username }],
});

/** The first Machine write: serving may lag the CRD's Established condition (503 "Resource kind ... not found"). */
function createWhenServed(client: ResourceClient, machine: KubeObject): Promise<{ object: KubeObject }> {
  return pollUntil('the Machine CRD served', 30_000, async () => {
    try {
      return await client.create(MACHINE_NAMESPACE, machine);
    } catch (err) {
      if ((err as { code?: number }).code === 503) return undefined;
      throw err;
    }
  });
}

/** `hookkeeper audit -o json` as break-glass (who may read /metrics), with the embedded default policy. */
async function audit(plane: ControlPlane): Promise<AuditReport> {
  const run = await cli(['audit', '--kubeconfig', await plane.kubeConfigFile('admin'), '--output', 'json'], {
    env: { HOME: plane.dir },
  });
  assert.ok(run.code === 0 || run.code === 1, run.stderr);
  return JSON.parse(run.stdout) as AuditReport;
}

function stageHooks(machine: KubeObject): unknown {
  return (machine['spec'] as { lifecycleHooks?: { preDrain?: unknown } } | undefined)?.lifecycleHooks?.preDrain;
}

const reloads = (m: StaticMetrics, status: 'success' | 'failure'): number =>
  m.reloads.ValidatingAdmissionPolicy[status];

/** The API server's audit events for a request URI's object, with their annotations. */
async function auditAnnotations(plane: ControlPlane, verb: string, uriPart: string): Promise<Record<string, string>[]> {
  const text = await readFile(plane.auditLog, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(
      (l) => JSON.parse(l) as { verb: string; requestURI: string; stage: string; annotations?: Record<string, string> },
    )
    .filter((e) => e.verb === verb && e.requestURI.includes(uriPart) && e.stage === 'ResponseComplete')
    .map((e) => e.annotations ?? {});
}

describe(`static admission manifests on kube-apiserver ${MAIN_K8S_VERSION}`, () => {
  let dir: string;
  let plane: ControlPlane;
  const apiObjects = renderNativePolicies(DEFAULT_POLICY, { k8sVersion: '1.37' }).objects as unknown as {
    kind: string;
    metadata: { name: string };
  }[];
  const plural: Record<string, string> = {
    ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
    ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
    MutatingAdmissionPolicy: 'mutatingadmissionpolicies',
    MutatingAdmissionPolicyBinding: 'mutatingadmissionpolicybindings',
  };
  const machines = (as: IdentityName) => new ResourceClient(plane.kubeConfig(as), OPENSHIFT_MACHINES);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-e2e-static-'));
    await renderStatic(dir, '1.37');
    plane = await startControlPlane({
      settings,
      crds: crdSet(),
      k8sVersion: MAIN_K8S_VERSION,
      apiserverArgs: [`--admission-control-config-file=${join(dir, 'admission-configuration.yaml')}`],
    });
  });
  after(async () => {
    await plane?.stop();
  });

  test('protection from the first request: the etcd hook is added on create and its removal refused', async () => {
    // The first Machine write this API server sees: no API object of hookkeeper's exists, no webhook runs.
    const created = await createWhenServed(machines('admin'), master('static-master-0'));
    assert.deepEqual(stageHooks(created.object), [ETCD_HOOK], 'the static mutating policy added the etcd hook');
    const refusal = await rejected(() => machines('alice').patch(MACHINE_NAMESPACE, 'static-master-0', removeEtcdHook));
    assert.equal(refusal.by, 'policy', refusal.message);
    assert.match(refusal.message, /ValidatingAdmissionPolicy 'hookkeeper-[a-z-]+\.static\.k8s\.io'/);
    assert.match(refusal.text, /EtcdQuorumOperator/);
    const listed = await api(plane, 'admin')('GET', `${ADMISSION}/validatingadmissionpolicies`);
    assert.deepEqual(
      (JSON.parse(listed.body) as { items: unknown[] }).items,
      [],
      'static policies are not API objects',
    );
  });

  describe("a cluster-admin who is not break-glass, with hookkeeper's API objects present", () => {
    before(async () => {
      const admin = api(plane, 'admin');
      const binding = CLUSTER_ADMIN_BINDING(plane.identities.clusterAdmin.username);
      const objects: [string, unknown][] = [
        ['/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding],
        ...(['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'] as const).map(
          (r): [string, unknown] => [`${ADMISSION}/${r}`, { metadata: { name: WEBHOOK_CONFIGURATION }, webhooks: [] }],
        ),
        // API-based native mode beside static mode: the same policy, as API objects.
        ...apiObjects.map((o): [string, unknown] => [`${ADMISSION}/${plural[o.kind]}`, o]),
      ];
      for (const [path, body] of objects) {
        const res = await admin('POST', path, body);
        assert.equal(res.status, 201, `POST ${path}: ${res.body}`);
      }
      await untilClusterAdmin(plane);
    });

    test('cannot remove the etcd hook', async () => {
      await machines('admin').create(MACHINE_NAMESPACE, master('static-master-1'));
      const refusal = await rejected(() =>
        machines('clusterAdmin').patch(MACHINE_NAMESPACE, 'static-master-1', removeEtcdHook),
      );
      assert.equal(refusal.by, 'policy', refusal.message);
      assert.match(refusal.text, /EtcdQuorumOperator/);
    });

    test('cannot create an object named *.static.k8s.io, nor find a hookkeeper static policy to delete', async () => {
      const as = api(plane, 'clusterAdmin');
      const forged = await as('POST', `${ADMISSION}/validatingadmissionpolicybindings`, {
        metadata: { name: 'hookkeeper-openshift-machine.static.k8s.io' },
        spec: { policyName: 'hookkeeper-openshift-machine.static.k8s.io', validationActions: ['Audit'] },
      });
      assert.equal(forged.status, 422, forged.body);
      assert.match(forged.body, /static\.k8s\.io/);
      const get = await as(
        'GET',
        `${ADMISSION}/validatingadmissionpolicies/hookkeeper-openshift-machine.static.k8s.io`,
      );
      assert.equal(get.status, 404);
      const del = await as(
        'DELETE',
        `${ADMISSION}/validatingadmissionpolicies/hookkeeper-openshift-machine.static.k8s.io`,
      );
      assert.equal(del.status, 404);
    });

    test("cannot change or delete hookkeeper's webhook configurations, API-mode policies or hookowners CRD", async () => {
      const as = api(plane, 'clusterAdmin');
      const guarded = [
        `${ADMISSION}/validatingwebhookconfigurations/${WEBHOOK_CONFIGURATION}`,
        `${ADMISSION}/mutatingwebhookconfigurations/${WEBHOOK_CONFIGURATION}`,
        ...apiObjects.map((o) => `${ADMISSION}/${plural[o.kind]}/${o.metadata.name}`),
        `${CRDS}/hookowners.hookkeeper.io`,
      ];
      for (const path of guarded) {
        const patch = await as('PATCH', path, label('tampered'), 'application/merge-patch+json');
        assert.equal(patch.status, 403, `PATCH ${path}: ${patch.body}`);
        assert.match(patch.body, /hookkeeper self-protection: update .* is refused/);
        const del = await as('DELETE', path);
        assert.equal(del.status, 403, `DELETE ${path}: ${del.body}`);
        assert.match(del.body, /hookkeeper self-protection: delete .* is refused/);
      }
      // A delete of the whole collection reaches admission per object: hookkeeper's stay.
      await as('DELETE', `${ADMISSION}/validatingadmissionpolicybindings`);
      for (const o of apiObjects.filter((x) => x.kind === 'ValidatingAdmissionPolicyBinding')) {
        const get = await as('GET', `${ADMISSION}/validatingadmissionpolicybindings/${o.metadata.name}`);
        assert.equal(get.status, 200, `${o.metadata.name} survived a collection delete`);
      }
      // Guarded by name only: the cluster-admin's own objects are theirs.
      const own = { metadata: { name: 'someone-elses' }, webhooks: [] };
      assert.equal((await as('POST', `${ADMISSION}/validatingwebhookconfigurations`, own)).status, 201);
      assert.equal((await as('DELETE', `${ADMISSION}/validatingwebhookconfigurations/someone-elses`)).status, 200);
    });

    test('break-glass still works: warned, and audited', async () => {
      await machines('admin').create(MACHINE_NAMESPACE, master('static-master-2'));
      const removal = await machines('admin').patch(MACHINE_NAMESPACE, 'static-master-2', removeEtcdHook);
      assert.deepEqual(stageHooks(removal.object) ?? [], []);
      assert.ok(
        warningTexts(removal.warnings).some((w) =>
          /^break-glass: e2e-admin may remove preDrain hook EtcdQuorumOperator/.test(w),
        ),
        removal.warnings.join('\n'),
      );

      const path = `${ADMISSION}/mutatingwebhookconfigurations/${WEBHOOK_CONFIGURATION}`;
      const del = await api(plane, 'admin')('DELETE', path);
      assert.equal(del.status, 200, del.body);
      const warnings = warningTexts(parseWarnings(del.headers['warning'] as string | undefined));
      assert.ok(
        warnings.some((w) =>
          w.startsWith(`break-glass: e2e-admin may delete mutatingwebhookconfigurations/${WEBHOOK_CONFIGURATION}`),
        ),
        warnings.join('\n'),
      );
      await pollUntil('the audit event of the break-glass delete', 30_000, async () => {
        const events = await auditAnnotations(
          plane,
          'delete',
          `mutatingwebhookconfigurations/${WEBHOOK_CONFIGURATION}`,
        );
        return events.some((a) =>
          Object.entries(a).some(
            ([k, v]) => k.startsWith('hookkeeper-self-protection-break-glass.static.k8s.io') && v.includes('e2e-admin'),
          ),
        )
          ? true
          : undefined;
      });
    });

    // The CRDs that carry hooks: a schema without the hook fields prunes every stored hook at the next write, and a
    // DELETE deletes every Machine. Upstream's CRDs replace the test ones here (the test Machine CRD preserves unknown
    // fields under spec, where a removed lifecycleHooks would be kept), ending on the Default feature set.
    describe('the CRDs that carry hooks', { skip: sharedCrds.skip }, () => {
      const MACHINE_CRD = `${CRDS}/machines.machine.openshift.io`;
      const REMOVE_HOOKS = [
        { op: 'remove', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/lifecycleHooks' },
      ];

      test('the shipped CRDs applied over themselves and their newer versions pass, without a warning', async () => {
        assert.ok(sharedCrds.present, `${settings.sharedCrdDir} does not exist (set HOOKKEEPER_E2E_SHARED_CRDS)`);
        const steps = [
          '0000_10_machine-api_01_machines-Default.crd.yaml',
          '0000_10_machine-api_01_machines-Default.crd.yaml',
          '0000_10_machine-api_01_machines-TechPreviewNoUpgrade.crd.yaml',
          '0000_10_machine-api_01_machines-Default.crd.yaml',
          '0000_10_machine-api_01_machinesets-Default.crd.yaml',
          '0000_10_machine-api_01_machinesets-TechPreviewNoUpgrade.crd.yaml',
          'cluster-api-v1.10.10/cluster.x-k8s.io_machines.yaml',
          'cluster-api-v1.10.10/cluster.x-k8s.io_machines.yaml',
          'cluster.x-k8s.io_machines.yaml',
        ];
        for (const file of steps) {
          const res = await replaceCrd(plane, 'clusterAdmin', join(settings.sharedCrdDir, file));
          assert.equal(res.status, 200, `${file}: ${res.body}`);
          assert.deepEqual(parseWarnings(res.headers['warning'] as string | undefined), [], file);
        }
        // Server-side apply, as `kubectl apply --server-side` and operators do, of the CRD over itself.
        const [crd] = await readCrds([join(settings.sharedCrdDir, steps[0] ?? '')]);
        const applied = await api(plane, 'clusterAdmin')(
          'PATCH',
          `${MACHINE_CRD}?fieldManager=hookkeeper-e2e&force=true`,
          crd,
          'application/apply-patch+yaml',
        );
        assert.equal(applied.status, 200, applied.body);
        // Kept hooks leave no hook-schema annotation in the CRD's audit events (4 replaces of the Machine CRD).
        const events = await pollUntil('the audit events of the Machine CRD replaces', 30_000, async () => {
          const found = await auditAnnotations(
            plane,
            'update',
            'customresourcedefinitions/machines.machine.openshift.io',
          );
          return found.length >= 4 ? found : undefined;
        });
        assert.deepEqual(
          events.flatMap((a) => Object.keys(a).filter((k) => k.endsWith('/hook-schema'))),
          [],
        );
      });

      test('a cluster-admin cannot remove spec.lifecycleHooks from the Machine schema, nor delete the CRD', async () => {
        const as = api(plane, 'clusterAdmin');
        const patch = await as('PATCH', MACHINE_CRD, REMOVE_HOOKS, 'application/json-patch+json');
        assert.equal(patch.status, 403, patch.body);
        assert.match(
          patch.body,
          /hookkeeper self-protection: update customresourcedefinitions\/machines\.machine\.openshift\.io is refused: its version v1beta1 would no longer keep spec\.lifecycleHooks/,
        );
        const del = await as('DELETE', MACHINE_CRD);
        assert.equal(del.status, 403, del.body);
        assert.match(
          del.body,
          /delete customresourcedefinitions\/machines\.machine\.openshift\.io is refused: deleting it deletes every Machine/,
        );
        const capi = await as('DELETE', `${CRDS}/machines.cluster.x-k8s.io`);
        assert.equal(capi.status, 403, capi.body);
        await pollUntil('the audit event of the refused schema change', 30_000, async () => {
          const events = await auditAnnotations(
            plane,
            'patch',
            'customresourcedefinitions/machines.machine.openshift.io',
          );
          return events.some((a) =>
            (a['hookkeeper-hook-schema.static.k8s.io/hook-schema'] ?? '').startsWith(
              `${plane.identities.clusterAdmin.username} update customresourcedefinitions/machines.machine.openshift.io`,
            ),
          )
            ? true
            : undefined;
        });
        const stored = await api(plane, 'admin')('GET', MACHINE_CRD);
        assert.ok(stored.body.includes('"lifecycleHooks"'), 'the schema still has the hooks');
      });

      test('break-glass may, warned and audited; `hookkeeper audit` names a schema that lost the hooks', async () => {
        const as = api(plane, 'admin');
        const patch = await as('PATCH', `${MACHINE_CRD}?dryRun=All`, REMOVE_HOOKS, 'application/json-patch+json');
        assert.equal(patch.status, 200, patch.body);
        const del = await as('DELETE', `${MACHINE_CRD}?dryRun=All`);
        assert.equal(del.status, 200, del.body);
        for (const [verb, res] of [
          ['update', patch],
          ['delete', del],
        ] as const) {
          const warnings = warningTexts(parseWarnings(res.headers['warning'] as string | undefined));
          assert.ok(
            warnings.some((w) =>
              w.startsWith(
                `break-glass: e2e-admin may ${verb} customresourcedefinitions/machines.machine.openshift.io: `,
              ),
            ),
            warnings.join('\n'),
          );
        }
        await pollUntil('the audit event of the break-glass schema change', 30_000, async () => {
          const events = await auditAnnotations(
            plane,
            'patch',
            'customresourcedefinitions/machines.machine.openshift.io',
          );
          return events.some((a) =>
            Object.entries(a).some(
              ([k, v]) =>
                k === 'hookkeeper-hook-schema-break-glass.static.k8s.io/hook-schema' && v.includes('e2e-admin'),
            ),
          )
            ? true
            : undefined;
        });
        assert.ok((await as('GET', MACHINE_CRD)).body.includes('"lifecycleHooks"'));

        // For real on the MachineSet CRD (no later test writes MachineSets): `hookkeeper audit` names what was lost.
        const strip = await as(
          'PATCH',
          `${CRDS}/machinesets.machine.openshift.io`,
          [
            {
              op: 'remove',
              path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/template/properties/spec/properties/lifecycleHooks',
            },
          ],
          'application/json-patch+json',
        );
        assert.equal(strip.status, 200, strip.body);
        const report = await audit(plane);
        assert.ok(
          report.notes.some((n) =>
            n.startsWith(
              'hook schema: customresourcedefinitions/machinesets.machine.openshift.io version v1beta1 does not keep spec.template.spec.lifecycleHooks',
            ),
          ),
          report.notes.join('\n'),
        );
      });
    });
  });

  test('a changed file is in force after the reload; a broken one is refused and the last good set stays', async () => {
    const policyFile = join(dir, 'alice-owns-etcd.yaml');
    // The same defaults, with alice registered for the etcd hook's owner: her removal is allowed once reloaded.
    await writeFile(
      policyFile,
      [
        'apiVersion: hookkeeper.io/v1alpha1',
        'kind: Policy',
        'owners:',
        '  clusteroperator/etcd:',
        '    serviceAccounts: [{ namespace: openshift-etcd-operator, name: etcd-operator }]',
        '    users: [alice]',
        '',
      ].join('\n'),
    );
    // Static mode alone from here: break-glass removes the API-mode policies the group above created.
    for (const o of apiObjects) {
      const res = await api(plane, 'admin')('DELETE', `${ADMISSION}/${plural[o.kind]}/${o.metadata.name}`);
      assert.equal(res.status, 200, res.body);
    }
    await machines('admin').create(MACHINE_NAMESPACE, master('static-master-3'));
    const before = await staticMetrics(plane);
    await renderStatic(dir, '1.37', policyFile);
    const expected = manifestDirHash([
      { name: 'hookkeeper.yaml', content: await readFile(join(dir, 'validating-policies', 'hookkeeper.yaml')) },
    ]);
    await pollUntil('the changed static policies in force', 150_000, async () => {
      try {
        await machines('alice').patch(MACHINE_NAMESPACE, 'static-master-3', removeEtcdHook, { dryRun: true });
        return true;
      } catch {
        return undefined;
      }
    });
    const reloaded = await staticMetrics(plane);
    assert.equal(reloaded.hash.ValidatingAdmissionPolicy, expected, 'the metric names the set in force');
    assert.ok(reloads(reloaded, 'success') > reloads(before, 'success'));

    // Broken: a policy without the suffix. The API server keeps what it had.
    const file = join(dir, 'validating-policies', 'hookkeeper.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replaceAll('.static.k8s.io', ''));
    await pollUntil('the broken file refused', 150_000, async () =>
      reloads(await staticMetrics(plane), 'failure') > reloads(reloaded, 'failure') ? true : undefined,
    );
    const after = await staticMetrics(plane);
    assert.equal(after.hash.ValidatingAdmissionPolicy, expected, 'still the last good set');
    await machines('alice').patch(MACHINE_NAMESPACE, 'static-master-3', removeEtcdHook, { dryRun: true });
    const refusal = await rejected(() => machines('bob').patch(MACHINE_NAMESPACE, 'static-master-3', removeEtcdHook));
    assert.equal(refusal.by, 'policy', refusal.message);

    // audit names the set in force and the refused reload; it is not the embedded default policy's render.
    const report = await audit(plane);
    const validating = report.staticAdmission?.plugins.find((p) => p.plugin === 'ValidatingAdmissionPolicy');
    assert.equal(validating?.hash, expected);
    assert.equal(validating?.matchesPolicy, false);
    assert.ok((validating?.failedReloads ?? 0) > 0);
  });

  // After the tests above: policies evaluated, files reloaded and refused, so every series has been observed.
  test("the API server metrics of hookkeeper's alerts and dashboard are on its /metrics", async () => {
    await monitoredMetricsServed(plane);
  });
});

describe(`static admission manifests on kube-apiserver ${PREVIOUS_K8S_VERSION} with ManifestBasedAdmissionControlConfig`, () => {
  let plane: ControlPlane;
  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-e2e-static-136-'));
    await renderStatic(dir, '1.36', undefined, null);
    plane = await startControlPlane({
      settings,
      crds: { ...crdSet(), name: 'test CRDs 1.36 static' },
      k8sVersion: PREVIOUS_K8S_VERSION,
      apiserverArgs: [
        '--feature-gates=ManifestBasedAdmissionControlConfig=true',
        `--admission-control-config-file=${join(dir, 'admission-configuration.yaml')}`,
      ],
    });
  });
  after(async () => {
    await plane?.stop();
  });

  test('the same files load and enforce: the etcd hook added, its removal refused, the hookowners CRD guarded', async () => {
    const machines = (as: IdentityName) => new ResourceClient(plane.kubeConfig(as), OPENSHIFT_MACHINES);
    const created = await createWhenServed(machines('admin'), master('static-136'));
    assert.deepEqual(stageHooks(created.object), [ETCD_HOOK]);
    const refusal = await rejected(() => machines('alice').patch(MACHINE_NAMESPACE, 'static-136', removeEtcdHook));
    assert.equal(refusal.by, 'policy', refusal.message);
    assert.match(refusal.message, /\.static\.k8s\.io'/);
    const admin = api(plane, 'admin');
    const binding = CLUSTER_ADMIN_BINDING(plane.identities.clusterAdmin.username);
    assert.equal((await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding)).status, 201);
    await untilClusterAdmin(plane);
    const del = await api(plane, 'clusterAdmin')('DELETE', `${CRDS}/hookowners.hookkeeper.io`);
    assert.equal(del.status, 403, del.body);
    assert.match(del.body, /hookkeeper self-protection/);

    // Rendered with default options from the default policy: audit recognises hookkeeper's set on both plugins.
    const report = await audit(plane);
    assert.deepEqual(
      report.staticAdmission?.plugins.map((p) => [p.plugin, p.matchesPolicy]),
      [
        ['ValidatingAdmissionPolicy', true],
        ['MutatingAdmissionPolicy', true],
      ],
    );
    // Policies evaluated and the files loaded: the metrics of hookkeeper's alerts and dashboard are there on 1.36 too.
    await monitoredMetricsServed(plane);
  });
});
