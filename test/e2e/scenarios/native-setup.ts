// The native-cel group's set-up: its policy, the rendered objects applied to the API server with hookkeeper's
// webhooks unregistered (each policy probed until the API server enforces it, as each is loaded on its own), the
// way back to the webhooks afterwards, and the readers that strip the API server's prefixes.
import assert from 'node:assert/strict';
import { parsePolicy } from '../../../src/infrastructure/config/load.js';
import { evaluate } from '../../../src/core/engine.js';
import type { KubeObject, ReviewInput } from '../../../src/core/types.js';
import { renderNativePolicies, type NativeRender } from '../../../src/compilers/native/render.js';
import {
  capiMachine,
  ETCD_HOOK,
  MACHINE_NAMESPACE,
  openshiftMachine,
  type Hook,
} from '../../../testing/control-plane/machines.js';
import type { ControlPlane } from '../../../testing/control-plane/control-plane.js';
import { registerWebhooks, waitForEnforcement } from '../../../testing/control-plane/hookkeeper.js';
import { createRaw, rawRequest } from '../../../testing/control-plane/http.js';
import type { IdentityName } from '../../../testing/control-plane/identities.js';
import { rejected, type Rejection, type ResourceClient } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import type { E2EEnv } from '../harness/suite.js';
import { hooksOf } from './helpers.js';

const API = '/apis/admissionregistration.k8s.io/v1';
const COLLECTIONS: Readonly<Record<string, string>> = {
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
  MutatingAdmissionPolicy: 'mutatingadmissionpolicies',
  MutatingAdmissionPolicyBinding: 'mutatingadmissionpolicybindings',
};
export const NAMESPACE = 'native-cel';
/** Where the policy's Cluster API default-hook rule applies. */
export const CAPI_NAMESPACE = 'native-cel-capi';
export const CAPI_DRAIN = 'pre-drain.delete.hook.machine.cluster.x-k8s.io';

/**
 * The default policy plus a user-registered owner, so registry, RBAC and unverified routes all show (an owner of
 * this group's own: the hook-owner scenarios before it grant alice team/storage through RBAC, cluster-wide).
 */
export const POLICY = parsePolicy(
  [
    'apiVersion: hookkeeper.io/v1alpha1',
    'kind: Policy',
    'owners:',
    '  team/native-storage:',
    '    users: [bob]',
    '  clusteroperator/etcd:',
    '    serviceAccounts: [{namespace: openshift-etcd-operator, name: etcd-operator}]',
    'reservedHooks:',
    '  - {name: EtcdQuorumOperator, owner: clusteroperator/etcd}',
    'defaultHooks:',
    '  - name: etcd-quorum-protection',
    '    match:',
    '      kinds: [{group: machine.openshift.io, kind: Machine}]',
    '      namespaces: [openshift-machine-api]',
    '      labelSelector:',
    '        matchExpressions: [{key: machine.openshift.io/cluster-api-machine-role, operator: In, values: [master, arbiter]}]',
    '    operations: [CREATE]',
    '    stage: preDrain',
    '    hook: {name: EtcdQuorumOperator, owner: clusteroperator/etcd}',
    '  - name: capi-storage-guard',
    '    match:',
    '      kinds: [{group: cluster.x-k8s.io, kind: Machine}]',
    '      namespaces: [native-cel-capi]',
    '    operations: [CREATE]',
    '    stage: preTerminate',
    '    hook: {name: StorageGuard, owner: team/native-storage}',
    // The most hooks per stage a policy may allow of owners it does not name (64 more of owners it names).
    'maxHooksPerStage: 1000',
  ].join('\n'),
  'native-cel.yaml',
);

/** What the API server says after its "... denied request: " prefix. */
/** A copy of a stored Machine API Machine with its preTerminate hooks replaced. */
export function withPreTerminate(
  stored: Record<string, unknown>,
  hooks: Array<{ name: string; owner: string }>,
): Record<string, unknown> {
  const copy = structuredClone(stored);
  const spec = copy['spec'] as { lifecycleHooks?: Record<string, unknown> };
  spec.lifecycleHooks = { ...spec.lifecycleHooks, preTerminate: hooks };
  return copy;
}

export function policyMessage(r: Rejection): string {
  const m = /ValidatingAdmissionPolicy '[^']+' with binding '[^']+' denied request: (.*)$/s.exec(r.message);
  assert.ok(m, `not a ValidatingAdmissionPolicy denial: ${r.message}`);
  return m[1] ?? '';
}

export function policyWarnings(warnings: readonly string[]): string[] {
  return warnings.map(
    (w) => /^Validation failed for ValidatingAdmissionPolicy '[^']+' with binding '[^']+': (.*)$/s.exec(w)?.[1] ?? w,
  );
}

/**
 * Sends each object as a server-side dry run (`?dryRun=All`): the API server compiles every expression and answers
 * 201, or names the one that does not compile; nothing is stored.
 */
export async function compiles(plane: ControlPlane, objects: readonly KubeObject[]): Promise<void> {
  for (const rendered of objects) {
    // Renamed: the group's own objects of the same names are installed.
    const o = structuredClone(rendered);
    const meta = o['metadata'] as { name: string };
    meta.name = `${meta.name}-dry-run`;
    const spec = o['spec'] as { policyName?: string };
    if (spec.policyName !== undefined) spec.policyName = `${spec.policyName}-dry-run`;
    await createRaw(
      plane.server,
      plane.caPem,
      plane.identities.admin.token,
      `/apis/${o['apiVersion'] as string}/${COLLECTIONS[o['kind'] as string]}?dryRun=All`,
      o,
    );
  }
}

async function apply(plane: ControlPlane, objects: readonly KubeObject[]): Promise<void> {
  for (const o of objects) {
    await createRaw(
      plane.server,
      plane.caPem,
      plane.identities.admin.token,
      `/apis/${o['apiVersion'] as string}/${COLLECTIONS[o['kind'] as string]}`,
      o,
    );
  }
}

async function remove(plane: ControlPlane, path: string): Promise<void> {
  const res = await rawRequest({
    url: `${plane.server}${path}`,
    method: 'DELETE',
    ca: plane.caPem,
    token: plane.identities.admin.token,
    timeoutMs: 30_000,
  });
  if (res.status !== 200 && res.status !== 404) throw new Error(`DELETE ${path}: HTTP ${res.status}: ${res.body}`);
}

/** The engine's verdict for the same request, as the webhook would give it (no RBAC facts: registry only). */
export function engine(
  e: E2EEnv,
  as: IdentityName,
  kind: { group: string; kind: string },
  object: KubeObject,
  oldObject: KubeObject | null,
): ReturnType<typeof evaluate> {
  const who = e.plane.identities[as];
  const meta = object['metadata'] as { name: string; namespace: string };
  const input: ReviewInput = {
    operation: oldObject ? 'UPDATE' : 'CREATE',
    kind: { ...kind, version: 'v1beta1' },
    namespace: meta.namespace,
    name: meta.name,
    object,
    oldObject,
    userInfo: { username: who.username, groups: [...who.groups, 'system:authenticated'] },
    dryRun: false,
  };
  return evaluate(POLICY, input);
}

export const OPENSHIFT = { group: 'machine.openshift.io', kind: 'Machine' };
export const CAPI = { group: 'cluster.x-k8s.io', kind: 'Machine' };

/** Replaces a stored object's hooks of one stage (a full update, so the engine sees exactly what was sent). */
export async function withHooks(
  client: ResourceClient,
  name: string,
  preDrain: Hook[],
  namespace = NAMESPACE,
): Promise<{ before: KubeObject; after: KubeObject }> {
  const before = await client.get(namespace, name);
  const after = structuredClone(before);
  (after['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks = { preDrain };
  return { before, after };
}

export const many = (n: number, owner: (i: number) => string): Hook[] =>
  Array.from({ length: n }, (_, i) => ({ name: `hook-${i}.example.com/Step${i}`, owner: owner(i) }));

export interface Installed {
  rendered: NativeRender;
  /** The server's version, as render takes it (v1.36.5). */
  k8sVersion: string;
  /** MutatingAdmissionPolicy is served (v1 from 1.36; v1beta1 in 1.34-1.35 only behind its feature gate). */
  mutating: boolean;
}

/** Unregisters hookkeeper's webhooks, applies the rendered policies and waits until each is enforced. */
export async function installNativePolicies(e: E2EEnv): Promise<Installed> {
  const version = await rawRequest({
    url: `${e.plane.server}/version`,
    ca: e.plane.caPem,
    token: e.plane.identities.admin.token,
    timeoutMs: 10_000,
  });
  const { gitVersion } = JSON.parse(version.body) as { gitVersion: string };
  const k8sVersion = gitVersion.replace(/[-+].*$/, '');
  let rendered = renderNativePolicies(POLICY, { k8sVersion });
  const map = rendered.objects.find((o) => o['kind'] === 'MutatingAdmissionPolicy');
  const discovery = map
    ? await rawRequest({
        url: `${e.plane.server}/apis/${map['apiVersion'] as string}`,
        ca: e.plane.caPem,
        token: e.plane.identities.admin.token,
        timeoutMs: 10_000,
      })
    : undefined;
  const mutating = discovery?.status === 200 && discovery.body.includes('"mutatingadmissionpolicies"');
  if (!mutating)
    rendered = { ...rendered, objects: rendered.objects.filter((o) => !String(o['kind']).startsWith('Mutating')) };
  await remove(e.plane, `${API}/validatingwebhookconfigurations/hookkeeper-e2e`);
  await remove(e.plane, `${API}/mutatingwebhookconfigurations/hookkeeper-e2e`);
  for (const name of [NAMESPACE, CAPI_NAMESPACE]) {
    await createRaw(e.plane.server, e.plane.caPem, e.plane.identities.admin.token, '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
  }
  // A registered owner's hook, for the removal policy's probe.
  await e.machines('admin').create(
    NAMESPACE,
    openshiftMachine({
      name: 'probe-owned',
      namespace: NAMESPACE,
      preDrain: [{ name: 'Probe', owner: 'team/native-storage' }],
    }),
  );
  // Stored before any policy: a reserved name with the wrong owner, for ratcheting.
  await e.machines('admin').create(
    NAMESPACE,
    openshiftMachine({
      name: 'ratchet',
      namespace: NAMESPACE,
      preDrain: [{ name: ETCD_HOOK.name, owner: 'someone/else' }],
    }),
  );
  await apply(e.plane, rendered.objects);
  const probe = openshiftMachine({
    name: 'probe',
    namespace: NAMESPACE,
    preDrain: [{ name: ETCD_HOOK.name, owner: 'x/y' }],
  });
  await pollUntil(
    'the native policies to deny their probe',
    30_000,
    async () => {
      const r = await rejected(() => e.machines('admin').create(NAMESPACE, probe, { dryRun: true })).catch(
        () => undefined,
      );
      return r && /ValidatingAdmissionPolicy/.test(r.message) ? true : undefined;
    },
    200,
  );
  // Each policy is loaded on its own: probe the Cluster API one, and the warn and break-glass ones.
  const capiProbe = capiMachine({
    name: 'probe',
    namespace: NAMESPACE,
    annotations: { [`${CAPI_DRAIN}/${ETCD_HOOK.name}`]: 'x/y' },
  });
  await pollUntil(
    'the Cluster API policy to deny its probe',
    30_000,
    async () => {
      const r = await rejected(() => e.capiMachines('admin').create(NAMESPACE, capiProbe, { dryRun: true })).catch(
        () => undefined,
      );
      return r && /ValidatingAdmissionPolicy/.test(r.message) ? true : undefined;
    },
    200,
  );
  await pollUntil(
    'the warn and break-glass policies to warn',
    30_000,
    async () => {
      const stored = await e.machines('admin').get(NAMESPACE, 'ratchet');
      const emptied = structuredClone(stored);
      (emptied['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks = {};
      // Only an update of what a rule reads is reviewed: add a hook beside the stored violation.
      const touched = withPreTerminate(stored, [{ name: 'Probe', owner: 'team/native-storage' }]);
      const [glass, ratchet] = await Promise.all([
        e.machines('admin').replace(NAMESPACE, emptied, { dryRun: true }),
        e.machines('admin').replace(NAMESPACE, touched, { dryRun: true }),
      ]);
      return glass.warnings.some((w) => w.includes('break-glass:')) && ratchet.warnings.length > 0 ? true : undefined;
    },
    200,
  );
  await pollUntil(
    'the removal policy to deny its probe',
    30_000,
    async () => {
      const owned = await e.machines('alice').get(NAMESPACE, 'probe-owned');
      (owned['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks = {};
      const r = await rejected(() => e.machines('alice').replace(NAMESPACE, owned, { dryRun: true })).catch(
        () => undefined,
      );
      return r && /ValidatingAdmissionPolicy/.test(r.message) ? true : undefined;
    },
    200,
  );
  if (mutating)
    await pollUntil(
      'the Cluster API mutating policy to add its hook',
      30_000,
      async () => {
        const { object } = await e
          .capiMachines('admin')
          .create(CAPI_NAMESPACE, capiMachine({ name: 'probe', namespace: CAPI_NAMESPACE }), { dryRun: true });
        return (object['metadata'] as { annotations?: object }).annotations ? true : undefined;
      },
      200,
    );
  if (mutating)
    await pollUntil(
      'the native mutating policy to add the etcd hook',
      30_000,
      async () => {
        const { object } = await e
          .machines('admin')
          .create(MACHINE_NAMESPACE, openshiftMachine({ name: 'probe-cp', role: 'master' }), { dryRun: true });
        return hooksOf(object, 'preDrain').some((h) => h.name === ETCD_HOOK.name) ? true : undefined;
      },
      200,
    );
  return { rendered, mutating, k8sVersion };
}

/** Removes the native policies and registers hookkeeper's webhooks again, for the groups that follow. */
export async function removeNativePolicies(e: E2EEnv, rendered: NativeRender): Promise<void> {
  for (const o of rendered.objects) {
    const name = (o['metadata'] as { name: string }).name;
    await remove(e.plane, `/apis/${o['apiVersion'] as string}/${COLLECTIONS[o['kind'] as string]}/${name}`);
  }
  await registerWebhooks(e.plane, e.hookkeeper);
  await waitForEnforcement(e.plane);
}
