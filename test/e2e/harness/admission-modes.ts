// The four ways hookkeeper's Machine rules reach the API server, switched on one control plane: the webhooks
// (today's registration), the native admission policies alone (no webhook configuration registered at all), both
// (native policies as the fail-closed backstop, the webhooks at failurePolicy Ignore), or static (the same policies as
// static manifests the API server loads from its disk, nothing else).
import assert from 'node:assert/strict';
import { caBundle } from '../../../src/infrastructure/certs/pki.js';
import { DEFAULT_POLICY } from '../../../src/infrastructure/config/defaults.js';
import type { Policy } from '../../../src/core/policy.js';
import type { KubeObject } from '../../../src/core/types.js';
import { renderWebhookConfigurations } from '../../../src/compilers/deploy/render.js';
import type { Divergence } from '../../../src/compilers/native/notes.js';
import { renderNativePolicies } from '../../../src/compilers/native/render.js';
import { staticManifests } from '../../../src/compilers/native/static.js';
import { HOOK_ANNOTATION_PREFIX } from '../../../src/core/capi.js';
import {
  capiMachine,
  ETCD_HOOK,
  MACHINE_NAMESPACE,
  openshiftMachine,
} from '../../../testing/control-plane/machines.js';
import type { ControlPlane } from '../../../testing/control-plane/control-plane.js';
import { waitForEnforcement, type Hookkeeper } from '../../../testing/control-plane/hookkeeper.js';
import { rawRequest } from '../../../testing/control-plane/http.js';
import { CAPI_MACHINES, OPENSHIFT_MACHINES, rejected, ResourceClient } from '../../../testing/control-plane/kube.js';
import { pollUntil } from '../../../testing/control-plane/processes.js';
import { applyStaticSet, staticText } from '../../../testing/control-plane/static-admission.js';

/**
 * In the order a suite runs them. Static is not last: the groups after the modes switch away from the last mode and
 * back, and a static set costs a reload each way (about 35 s on two shared cores, where both mode costs a few).
 */
export const ADMISSION_MODES = ['webhook', 'native', 'static', 'both'] as const;
export type AdmissionMode = (typeof ADMISSION_MODES)[number];

/** Whether hookkeeper's webhooks are registered in a mode (and so add their words to the policies'). */
export function webhookRuns(mode: AdmissionMode): boolean {
  return mode === 'webhook' || mode === 'both';
}

/** The name the suite registers its webhook configurations under (the API server quotes the webhooks' own names). */
export const WEBHOOK_CONFIGURATION = 'hookkeeper-e2e';
const ADMISSIONREGISTRATION = '/apis/admissionregistration.k8s.io/v1';
const WEBHOOK_KINDS = ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'] as const;

export interface NativePolicies {
  /** The policy they are of (static mode renders its files from it). */
  policy: Policy;
  /** What `renderNativePolicies(policy, { k8sVersion })` returned for the suite's policy and this API server. */
  objects: KubeObject[];
  notes: string[];
  /** The same divergences as values: the rule, and the requests whose verdict may differ. */
  divergences: Divergence[];
  /** The API server's version, as /version reports it (e.g. v1.36.5). */
  k8sVersion: string;
}

function log(plane: ControlPlane, message: string): void {
  process.stderr.write(`[e2e] ${plane.label}: ${message}\n`);
}

async function call(plane: ControlPlane, method: string, path: string, body?: unknown) {
  return rawRequest({
    url: `${plane.server}${path}`,
    method,
    ca: plane.caPem,
    token: plane.identities.admin.token,
    ...(body === undefined ? {} : { body }),
    timeoutMs: 30_000,
  });
}

async function getJson<T>(plane: ControlPlane, path: string): Promise<T> {
  const res = await call(plane, 'GET', path);
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}: ${res.body}`);
  return JSON.parse(res.body) as T;
}

/**
 * A policy (the suite's: hookkeeper serve's embedded default, unless another is given) compiled for the API server
 * the suite runs.
 */
export async function renderForPlane(plane: ControlPlane, policy: Policy = DEFAULT_POLICY): Promise<NativePolicies> {
  const { gitVersion } = await getJson<{ gitVersion: string }>(plane, '/version');
  const { objects, notes, divergences } = renderNativePolicies(policy, { k8sVersion: gitVersion });
  return { policy, objects, notes, divergences, k8sVersion: gitVersion };
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** The REST path of an object's collection, from the API server's own discovery (no hand-kept plural table). */
async function collectionPath(plane: ControlPlane, obj: KubeObject): Promise<string> {
  const apiVersion = String(obj['apiVersion']);
  const kind = String(obj['kind']);
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const { resources } = await getJson<{ resources: ApiResource[] }>(plane, base);
  const resource = resources.find((r) => r.kind === kind && !r.name.includes('/'));
  if (!resource) throw new Error(`the API server serves no ${kind} in ${apiVersion}`);
  const namespace = (obj['metadata'] as { namespace?: string } | undefined)?.namespace;
  if (resource.namespaced && !namespace) throw new Error(`${kind} ${objectName(obj)} is namespaced but names none`);
  return resource.namespaced ? `${base}/namespaces/${namespace}/${resource.name}` : `${base}/${resource.name}`;
}

function objectName(obj: KubeObject): string {
  return String((obj['metadata'] as { name?: unknown } | undefined)?.name);
}

/** Creates the namespaces the objects live in when missing (a params ConfigMap's, say). */
async function ensureNamespaces(plane: ControlPlane, objects: readonly KubeObject[]): Promise<void> {
  const namespaces = new Set(
    objects.map((o) => (o['metadata'] as { namespace?: string } | undefined)?.namespace).filter((n) => n !== undefined),
  );
  for (const name of namespaces) {
    const res = await call(plane, 'POST', '/api/v1/namespaces', { metadata: { name } });
    if (res.status !== 201 && res.status !== 409) throw new Error(`namespace ${name}: HTTP ${res.status}: ${res.body}`);
  }
}

/** Each object POSTed as rendered, in render's order (params, policies, bindings). */
async function applyObjects(plane: ControlPlane, objects: readonly KubeObject[]): Promise<void> {
  await ensureNamespaces(plane, objects);
  for (const obj of objects) {
    const path = await collectionPath(plane, obj);
    const res = await call(plane, 'POST', path, obj);
    if (res.status !== 201) throw new Error(`POST ${path} (${objectName(obj)}): HTTP ${res.status}: ${res.body}`);
  }
}

/** The native objects switchMode last applied on each plane: the next switch removes them, whatever policy they were of. */
const applied = new WeakMap<ControlPlane, readonly KubeObject[]>();

/** The objects of both lists, each once (by apiVersion, kind and name), the first list's order first. */
function union(a: readonly KubeObject[], b: readonly KubeObject[]): KubeObject[] {
  const seen = new Set<string>();
  return [...a, ...b].filter((o) => {
    const key = `${String(o['apiVersion'])}/${String(o['kind'])}/${objectName(o)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Deletes the objects (bindings first: the reverse of apply order) and waits until each is gone. */
async function deleteObjects(plane: ControlPlane, objects: readonly KubeObject[]): Promise<void> {
  for (const obj of [...objects].reverse()) {
    const path = `${await collectionPath(plane, obj)}/${encodeURIComponent(objectName(obj))}`;
    const res = await call(plane, 'DELETE', path);
    if (res.status !== 200 && res.status !== 202 && res.status !== 404)
      throw new Error(`DELETE ${path}: HTTP ${res.status}: ${res.body}`);
    await pollUntil(`${path} to be gone`, 30_000, async () =>
      (await call(plane, 'GET', path)).status === 404 ? true : undefined,
    );
  }
}

/** Every webhook configuration in the cluster, by kind. */
export async function webhookConfigurations(plane: ControlPlane): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const kind of WEBHOOK_KINDS) {
    const list = await getJson<{ items: KubeObject[] }>(plane, `${ADMISSIONREGISTRATION}/${kind}`);
    out[kind] = list.items.map(objectName);
  }
  return out;
}

/** Removes every webhook configuration (the suite's own and any a scenario group left): native mode means none. */
async function removeWebhooks(plane: ControlPlane): Promise<void> {
  for (const [kind, names] of Object.entries(await webhookConfigurations(plane))) {
    for (const name of names) await call(plane, 'DELETE', `${ADMISSIONREGISTRATION}/${kind}/${name}`);
  }
}

async function registerWebhooksWith(
  plane: ControlPlane,
  hookkeeper: Hookkeeper,
  failurePolicy: 'Fail' | 'Ignore' | undefined,
  policy: Policy,
): Promise<void> {
  const [validating, mutating] = renderWebhookConfigurations({
    // The conditions derived for the policy hookkeeper serves, as `webhook-config render --config` writes them (for
    // the embedded default, the base's own).
    policy,
    caBundle: caBundle(hookkeeper.caPem),
    url: hookkeeper.url,
    // As registerWebhooks: kube-system stays open for scenarios that register webhooks of their own there.
    namespace: 'kube-system',
    name: WEBHOOK_CONFIGURATION,
    ...(failurePolicy ? { failurePolicy: { validating: failurePolicy, mutating: failurePolicy } } : {}),
  });
  if (!validating || !mutating) throw new Error('renderWebhookConfigurations returned fewer than two configurations');
  for (const [kind, body] of [
    ['validatingwebhookconfigurations', validating],
    ['mutatingwebhookconfigurations', mutating],
  ] as const) {
    const res = await call(plane, 'POST', `${ADMISSIONREGISTRATION}/${kind}`, body);
    if (res.status !== 201) throw new Error(`POST ${kind}: HTTP ${res.status}: ${res.body}`);
  }
}

/** A worker Machine claiming the reserved etcd hook name (no default-hook rule touches workers). */
const RESERVED_PROBE = openshiftMachine({
  name: 'probe-reserved-hook',
  role: 'worker',
  preDrain: [{ name: ETCD_HOOK.name, owner: 'someone' }],
});
/** The same claim as a Cluster API hook annotation: each kind's policies load on their own, so each is probed. */
const RESERVED_CAPI_PROBE = capiMachine({
  name: 'probe-reserved-capi-hook',
  namespace: MACHINE_NAMESPACE,
  annotations: { [`${HOOK_ANNOTATION_PREFIX.preDrain}/${ETCD_HOOK.name}`]: 'someone' },
});
/**
 * Stored Machines carrying the etcd hook, whose removal by alice each kind's removal policy must refuse when the
 * policy in force denies it (that policy is among the applied objects): it matches UPDATE only and loads on its own,
 * so the CREATE probes above say nothing about it (a CI run saw a Cluster API removal allowed right after the
 * reserved-name probe was refused).
 */
const ETCD_CAPI_ANNOTATION = `${HOOK_ANNOTATION_PREFIX.preDrain}/${ETCD_HOOK.name}`;
const REMOVAL_PROBES = [
  {
    what: 'Machine API',
    policy: 'hookkeeper-openshift-machine-removal',
    resource: OPENSHIFT_MACHINES,
    stored: openshiftMachine({ name: 'probe-removal', role: 'worker', preDrain: [ETCD_HOOK] }),
    removal: [
      { op: 'test', path: '/spec/lifecycleHooks/preDrain/0/name', value: ETCD_HOOK.name },
      { op: 'remove', path: '/spec/lifecycleHooks/preDrain/0' },
    ],
  },
  {
    what: 'Cluster API',
    policy: 'hookkeeper-capi-machine-removal',
    resource: CAPI_MACHINES,
    stored: capiMachine({
      name: 'probe-removal-capi',
      namespace: MACHINE_NAMESPACE,
      annotations: { [ETCD_CAPI_ANNOTATION]: ETCD_HOOK.owner },
    }),
    removal: [{ op: 'remove', path: `/metadata/annotations/${ETCD_CAPI_ANNOTATION.replace('/', '~1')}` }],
  },
  // controller-finalizer's policies load on their own too: alice taking the controller's finalizer off a Machine
  // that carries the etcd hook.
  {
    what: 'Machine API finalizer',
    policy: 'hookkeeper-openshift-machine-finalizers',
    resource: OPENSHIFT_MACHINES,
    stored: openshiftMachine({
      name: 'probe-finalizer',
      role: 'worker',
      preDrain: [ETCD_HOOK],
      finalizers: ['machine.machine.openshift.io'],
    }),
    removal: [{ op: 'remove', path: '/metadata/finalizers' }],
  },
  {
    what: 'Cluster API finalizer',
    policy: 'hookkeeper-capi-machine-finalizers',
    resource: CAPI_MACHINES,
    stored: capiMachine({
      name: 'probe-finalizer-capi',
      namespace: MACHINE_NAMESPACE,
      annotations: { [ETCD_CAPI_ANNOTATION]: ETCD_HOOK.owner },
      finalizers: ['machine.cluster.x-k8s.io'],
    }),
    removal: [{ op: 'remove', path: '/metadata/finalizers' }],
  },
] as const;

/** How long the mutating policy gets after the validating ones enforce (both load through the same informers). */
const MUTATION_GRACE_MS = 10_000;
/** A stored worker Machine that dry-run updates are sent against. */
const UPDATE_PROBE = 'probe-update-target';

/**
 * Polls until the native policies enforce: the validating policy refuses the reserved-name probe and each kind's
 * removal policy alice's removal of the etcd hook, the mutating policy
 * gives a control-plane probe its etcd hook, and, with `nothingElse`, a dry-run UPDATE goes through while hookkeeper is
 * stopped (a webhook configuration the API server still had cached would fail it closed).
 */
async function waitForNative(
  plane: ControlPlane,
  objects: readonly KubeObject[],
  nothingElse: boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const t = Date.now();
  const machines = new ResourceClient(plane.kubeConfig('admin'), OPENSHIFT_MACHINES);
  const capiMachines = new ResourceClient(plane.kubeConfig('admin'), CAPI_MACHINES);
  for (const [what, client, probe] of [
    ['Machine API', machines, RESERVED_PROBE],
    ['Cluster API', capiMachines, RESERVED_CAPI_PROBE],
  ] as const) {
    await pollUntil(
      `the ${what} validating admission policy to deny its probe`,
      timeoutMs,
      async () => {
        const refusal = await rejected(() => client.create(MACHINE_NAMESPACE, probe, { dryRun: true })).catch(
          () => undefined,
        );
        return refusal?.by === 'policy' ? true : undefined;
      },
      200,
    );
  }
  const denying = new Set(
    objects
      .filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding')
      .filter((o) => ((o['spec'] as { validationActions?: string[] }).validationActions ?? []).includes('Deny'))
      .map((o) => (o['metadata'] as { name: string }).name),
  );
  for (const probe of REMOVAL_PROBES.filter((p) => denying.has(p.policy))) {
    const admin = new ResourceClient(plane.kubeConfig('admin'), probe.resource);
    const name = (probe.stored['metadata'] as { name: string }).name;
    if (!(await admin.exists(MACHINE_NAMESPACE, name))) await admin.create(MACHINE_NAMESPACE, probe.stored);
    const alice = new ResourceClient(plane.kubeConfig('alice'), probe.resource);
    await pollUntil(
      `the ${probe.what} removal policy to refuse alice's removal of the etcd hook`,
      timeoutMs,
      async () => {
        const refusal = await rejected(() =>
          alice.patch(MACHINE_NAMESPACE, name, probe.removal, { dryRun: true }),
        ).catch(() => undefined);
        return refusal?.by === 'policy' ? true : undefined;
      },
      200,
    );
  }
  // The policies and bindings load together; once the validating ones enforce, the mutating one has had its chance.
  // One that still does not mutate is broken, not late: reported, and the default-hook scenarios fail on it.
  const mutated = await pollUntil(
    'the mutating admission policy to add the etcd hook to its probe',
    MUTATION_GRACE_MS,
    async () => {
      const { object } = await machines.create(
        MACHINE_NAMESPACE,
        openshiftMachine({ name: 'probe-control-plane', role: 'master' }),
        { dryRun: true },
      );
      const hooks = (object['spec'] as { lifecycleHooks?: { preDrain?: Array<{ name: string }> } }).lifecycleHooks;
      return (hooks?.preDrain ?? []).some((h) => h.name === ETCD_HOOK.name) ? true : undefined;
    },
    200,
  ).catch((err: unknown) => err as Error);
  if (mutated instanceof Error)
    log(plane, `WARNING: the mutating admission policy does not mutate its probe: ${mutated.message}`);
  if (nothingElse) {
    if (!(await machines.exists(MACHINE_NAMESPACE, UPDATE_PROBE)))
      await machines.create(MACHINE_NAMESPACE, openshiftMachine({ name: UPDATE_PROBE, role: 'worker' }));
    await pollUntil(
      'a dry-run update to pass with no webhook consulted',
      timeoutMs,
      async () => {
        try {
          await machines.patch(
            MACHINE_NAMESPACE,
            UPDATE_PROBE,
            [{ op: 'add', path: '/metadata/labels/probe', value: 'x' }],
            { dryRun: true },
          );
          return true;
        } catch {
          return undefined;
        }
      },
      200,
    );
  }
  log(plane, `native admission policies enforced after ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

/** The planes switchMode last left with a static set in force: the next switch empties it, unless it writes another. */
const staticInForce = new WeakSet<ControlPlane>();

/**
 * The policy's static manifests for this plane: render --static's plugin files, with self-protection over the suite's
 * webhook configuration name (the harness admin is break-glass).
 */
function staticFiles(plane: ControlPlane, native: NativePolicies) {
  const { files } = staticManifests(native.policy, {
    k8sVersion: native.k8sVersion,
    root: plane.staticAdmissionRoot ?? '/',
    selfProtection: { webhookConfigurations: [WEBHOOK_CONFIGURATION] },
  });
  return files.map(staticText);
}

/**
 * Puts the plane into `mode` from whatever it was in: everything of the other modes removed first (the webhook
 * configurations, the native objects this function applied last, of whichever policy, and a static set unless another
 * replaces it), then this mode's objects created or files written, then waited for until the API server enforces
 * them. `hookkeeper` and `native` are one policy's: the suite's, or another policy's (a hookkeeper started with it,
 * and renderForPlane(plane, policy)). `hookkeeper` runs in webhook and both modes and is stopped in native and static
 * mode, so nothing can answer a webhook call there.
 */
export async function switchMode(
  plane: ControlPlane,
  hookkeeper: Hookkeeper,
  native: NativePolicies,
  mode: AdmissionMode,
): Promise<void> {
  const t = Date.now();
  const webhookless = !webhookRuns(mode);
  await removeWebhooks(plane);
  await deleteObjects(plane, union(applied.get(plane) ?? [], native.objects));
  applied.delete(plane);
  if (staticInForce.has(plane) && mode !== 'static') {
    await applyStaticSet(plane, []);
    staticInForce.delete(plane);
  }
  if (webhookless) {
    if (hookkeeper.running()) await hookkeeper.stop();
  } else if (!hookkeeper.running()) {
    await hookkeeper.start();
  }
  if (!webhookless) {
    await registerWebhooksWith(plane, hookkeeper, mode === 'both' ? 'Ignore' : undefined, native.policy);
    // The webhooks first, alone, so that the probe proves they answer (the policies would refuse it first).
    await waitForEnforcement(plane);
  }
  if (mode === 'static') {
    // In force once the API server reports the files' hashes; the probes below then confirm what they enforce.
    staticInForce.add(plane);
    await applyStaticSet(plane, staticFiles(plane, native));
    await waitForNative(plane, native.objects, true);
  } else if (mode !== 'webhook') {
    applied.set(plane, native.objects);
    await applyObjects(plane, native.objects);
    await waitForNative(plane, native.objects, mode === 'native');
  }
  if (webhookless) {
    const left = await webhookConfigurations(plane);
    assert.deepEqual(left, { validatingwebhookconfigurations: [], mutatingwebhookconfigurations: [] });
  }
  log(plane, `admission mode ${mode} after ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
