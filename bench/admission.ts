// Figure 5: Machine write latency through a real kube-apiserver with no admission, with the hookkeeper webhook, with a
// bare floor webhook under the same registration, with hookkeeper's native admission policies as API objects and as
// static manifests, and with a native floor (the least any policy costs), in turns in the same run, for four kinds of
// request: an UPDATE touching no hook (the common write), an UPDATE removing a hook by its owner, a worker CREATE and a
// control-plane CREATE.
import { caBundle } from '../src/infrastructure/certs/pki.js';
import { join } from 'node:path';
import type { KubeObject } from '../src/core/types.js';
import { renderWebhookConfigurations } from '../src/compilers/deploy/render.js';
import type { ControlPlane } from '../testing/control-plane/control-plane.js';
import { registerWebhooks, waitForEnforcement, type Hookkeeper } from '../testing/control-plane/hookkeeper.js';
import { createRaw } from '../testing/control-plane/http.js';
import { pollUntil } from '../testing/control-plane/processes.js';
import type { Api } from './api.js';
import { Api as ApiClient, inParallel, MACHINES, named } from './api.js';
import { round } from './measure.js';
import { currentLoad } from './machine.js';
import { applyStaticSet } from '../testing/control-plane/static-admission.js';
import { profileWhile, type ApiserverProfile } from './apiserver-profile.js';
import { installNative, nativeFloor, removeNative, type NativePolicies, type StaticSet } from './native.js';
import { manifest } from './validate-cli.js';

const CONFIG_NAME = 'hookkeeper-e2e'; // the name registerWebhooks gives both configurations
const FLOOR_NAME = 'bench-floor';
const ETCD_HOOK = 'EtcdQuorumOperator';

export const VARIANTS = ['none', 'hookkeeper', 'floor', 'native', 'static', 'nativeFloor'] as const;
export type Variant = (typeof VARIANTS)[number];

/** In the order a round sends them: creates first, then updates of the control-plane Machines just created. */
export const REQUESTS = ['controlPlaneCreate', 'workerCreate', 'updateNoHook', 'updateRemoveHook'] as const;
export type RequestKind = (typeof REQUESTS)[number];

/** A hook of the etcd operator's (a registered owner) that the etcd operator removes: an allowed removal. */
const REMOVABLE = { name: 'BenchRemovable', owner: 'clusteroperator/etcd' };

export interface VariantStat {
  p50: number;
  p99: number;
  /** (p - p of none) / p of none, in percent; 0 for none itself. */
  p50OverheadPct: number;
  p99OverheadPct: number;
}

export type LatencyStat = Record<Variant, VariantStat>;

export interface AdmissionFigure {
  samplesPerRound: number;
  rounds: Array<{ variant: Variant; p99: Record<RequestKind, number> }>;
  requests: Record<RequestKind, LatencyStat>;
  /** The machine's 1-minute load average when the figure started and ended. */
  load: { start: number; end: number };
  /** render's notes: what the native policies do differently from the webhook. */
  nativeNotes: string[];
  /** The API server's CPU in admission per write, profiled with each policy variant in force. */
  profiles: Array<{ variant: Variant } & ApiserverProfile>;
  commands: string[];
}

/** The variants whose cost is inside the API server's own process, and the webhook's dispatch for comparison. */
export const PROFILED: readonly Variant[] = ['hookkeeper', 'native', 'static', 'nativeFloor'];

function controlPlaneMachine(i: number, prefix: string): KubeObject {
  const m = manifest(0);
  (m['metadata'] as Record<string, unknown>)['name'] = `${prefix}-cp-${i}`;
  (m['spec'] as { lifecycleHooks: Record<string, unknown> }).lifecycleHooks['preTerminate'] = [REMOVABLE];
  return m;
}

function workerMachine(i: number, prefix: string): KubeObject {
  const m = manifest(2);
  (m['metadata'] as Record<string, unknown>)['name'] = `${prefix}-w-${i}`;
  return m;
}

const timed = async (out: number[], fn: () => Promise<void>): Promise<void> => {
  const t = performance.now();
  await fn();
  out.push(performance.now() - t);
};

/**
 * One at a time, so each latency is the API server's (and its admission's) alone: n control-plane CREATEs, n worker
 * CREATEs, n label UPDATEs of the control-plane Machines (no hook touched) by the admin, and n UPDATEs removing each
 * one's etcd-operator hook by the etcd operator.
 */
async function latencyRound(api: Api, owner: Api, prefix: string, n: number): Promise<Record<RequestKind, number[]>> {
  const out: Record<RequestKind, number[]> = {
    controlPlaneCreate: [],
    workerCreate: [],
    updateNoHook: [],
    updateRemoveHook: [],
  };
  for (let i = 0; i < n; i++)
    await timed(out.controlPlaneCreate, () => api.expect(201, 'POST', MACHINES, controlPlaneMachine(i, prefix)));
  for (let i = 0; i < n; i++)
    await timed(out.workerCreate, () => api.expect(201, 'POST', MACHINES, workerMachine(i, prefix)));
  const patch = 'application/merge-patch+json';
  for (let i = 0; i < n; i++)
    await timed(out.updateNoHook, () =>
      api.expect(
        200,
        'PATCH',
        `${MACHINES}/${prefix}-cp-${i}`,
        { metadata: { labels: { 'bench.hookkeeper.io/touched': String(i) } } },
        patch,
      ),
    );
  for (let i = 0; i < n; i++)
    await timed(out.updateRemoveHook, () =>
      owner.expect(
        200,
        'PATCH',
        `${MACHINES}/${prefix}-cp-${i}`,
        { spec: { lifecycleHooks: { preTerminate: [] } } },
        patch,
      ),
    );
  await inParallel(n, 16, (i) => api.expect(200, 'DELETE', `${MACHINES}/${prefix}-cp-${i}`));
  await inParallel(n, 16, (i) => api.expect(200, 'DELETE', `${MACHINES}/${prefix}-w-${i}`));
  return out;
}

export function percentile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

/** p50 and p99 of each variant, and each one's distance from no admission at all. */
export function latencyStat(samples: Record<Variant, number[]>): LatencyStat {
  const none50 = percentile(samples.none, 0.5);
  const none99 = percentile(samples.none, 0.99);
  const one = (values: number[]): VariantStat => {
    const p50 = percentile(values, 0.5);
    const p99 = percentile(values, 0.99);
    return {
      p50: round(p50, 2),
      p99: round(p99, 2),
      p50OverheadPct: round(((p50 - none50) / none50) * 100, 1),
      p99OverheadPct: round(((p99 - none99) / none99) * 100, 1),
    };
  };
  return Object.fromEntries(VARIANTS.map((v) => [v, one(samples[v])])) as LatencyStat;
}

/**
 * What the API server enforces now, by dry runs that persist nothing: a worker claiming the reserved etcd hook name
 * (only hookkeeper, webhook or native, refuses it) and a control-plane Machine without hooks (only hookkeeper adds the
 * etcd hook). The floor webhook allows everything, so it shows as neither.
 */
async function enforcement(api: Api): Promise<{ validating: boolean; mutating: boolean }> {
  const probe = named(1, 'bench-probe');
  (probe['spec'] as Record<string, unknown>)['lifecycleHooks'] = { preDrain: [{ name: ETCD_HOOK, owner: 'someone' }] };
  const validating = (await api.call('POST', `${MACHINES}?dryRun=All`, probe)).status !== 201;
  const master = named(0, 'bench-probe');
  delete (master['spec'] as Record<string, unknown>)['lifecycleHooks'];
  const res = await api.call('POST', `${MACHINES}?dryRun=All`, master);
  if (res.status !== 201) throw new Error(`dry-run create of a control-plane Machine: HTTP ${res.status}: ${res.body}`);
  const created = JSON.parse(res.body) as KubeObject;
  const hooks = (created['spec'] as { lifecycleHooks?: { preDrain?: Array<{ name: string }> } }).lifecycleHooks;
  return { validating, mutating: (hooks?.preDrain ?? []).some((h) => h.name === ETCD_HOOK) };
}

/** Polls until both probes say `on` (the policies or webhooks are enforced) or both say off (they are gone). */
async function waitFor(api: Api, what: string, on: boolean): Promise<void> {
  await pollUntil(
    what,
    30_000,
    async () => {
      const now = await enforcement(api);
      return now.validating === on && now.mutating === on ? true : undefined;
    },
    200,
  );
}

async function unregisterWebhooks(api: Api, name: string): Promise<void> {
  await api.expect(200, 'DELETE', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`);
  await api.expect(200, 'DELETE', `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${name}`);
}

/** hookkeeper's own webhook configurations, pointed at the floor server instead. */
async function registerFloor(plane: ControlPlane, url: string, caPem: string): Promise<void> {
  for (const [i, config] of renderWebhookConfigurations({ caBundle: caBundle(caPem), url, name: FLOOR_NAME }).entries())
    await createRaw(
      plane.server,
      plane.caPem,
      plane.identities.admin.token,
      `/apis/admissionregistration.k8s.io/v1/${i === 0 ? 'validating' : 'mutating'}webhookconfigurations`,
      config,
    );
}

/** The floor allows everything, so no probe shows when the API server's informer has caught up: give it time. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 3_000));

export async function admissionFigure(
  deps: {
    plane: ControlPlane;
    api: Api;
    hookkeeper: Hookkeeper;
    native: NativePolicies;
    /** The same policy as static manifests, for a plane started with staticAdmission. */
    staticSet: StaticSet;
    floor: { url: string; caPem: string };
  },
  options: { samples: number; rounds: number; profileSeconds: number; profileDir: string },
  log: (line: string) => void,
): Promise<AdmissionFigure> {
  const { plane, api, hookkeeper, native, staticSet, floor } = deps;
  const owner = new ApiClient(plane, 'etcdOperator');
  const nativeFloorPolicies = nativeFloor(native);
  const load = { start: currentLoad(), end: 0 };
  const install: Record<Variant, () => Promise<void>> = {
    none: async () => {},
    native: async () => {
      await installNative(api, native);
      await waitFor(api, 'the API server to enforce the native policies', true);
    },
    // Loaded once the API server reports the files' hashes; the probes confirm it enforces them.
    // The directory's events can start a reload after the hash is reported (its CEL compiled again): let it finish.
    static: async () => {
      await applyStaticSet(plane, staticSet.files);
      await waitFor(api, 'the API server to enforce the static manifests', true);
      await settle();
    },
    hookkeeper: async () => {
      await registerWebhooks(plane, hookkeeper);
      await waitForEnforcement(plane);
    },
    floor: async () => {
      await registerFloor(plane, floor.url, floor.caPem);
      await settle();
    },
    // It allows everything and changes nothing: no probe shows it enforced.
    nativeFloor: async () => {
      await installNative(api, nativeFloorPolicies);
      await settle();
    },
  };
  const uninstall: Record<Variant, () => Promise<void>> = {
    none: async () => {},
    native: async () => {
      await removeNative(api, native);
      await waitFor(api, 'the API server to stop enforcing the native policies', false);
    },
    static: async () => {
      await applyStaticSet(plane, []);
      await waitFor(api, 'the API server to stop enforcing the static manifests', false);
    },
    hookkeeper: async () => {
      await unregisterWebhooks(api, CONFIG_NAME);
      await waitFor(api, 'the API server to stop calling hookkeeper', false);
    },
    floor: async () => {
      await unregisterWebhooks(api, FLOOR_NAME);
      await settle();
    },
    nativeFloor: async () => {
      await removeNative(api, nativeFloorPolicies);
      await settle();
    },
  };

  // Nothing may be enforced when "none" is measured: the native policies' dry runs prove they pass the same probes.
  if ((await enforcement(api)).validating)
    throw new Error('something refuses the probe before any variant is installed');
  const rounds: Array<{ variant: Variant; samples: Record<RequestKind, number[]> }> = [];
  const profiles: AdmissionFigure['profiles'] = [];
  try {
    await latencyRound(api, owner, 'bench-warm', options.samples); // connections, caches, the API server's own warm-up
    for (let r = 0; r < options.rounds; r++) {
      for (const variant of VARIANTS) {
        await install[variant]();
        const samples = await latencyRound(api, owner, `bench-r${r}-${variant.toLowerCase()}`, options.samples);
        await uninstall[variant]();
        rounds.push({ variant, samples });
        log(
          `admission: round ${r + 1} ${variant}: p99 ${REQUESTS.map((k) => `${k} ${round(percentile(samples[k], 0.99), 1)} ms`).join(', ')}`,
        );
      }
    }
    // After the timed rounds, so profiling never slows a measured write: the same writes, in batches, for as long as
    // the profile runs.
    for (const variant of PROFILED) {
      await install[variant]();
      let batch = 0;
      const profile = await profileWhile(
        plane,
        options.profileSeconds,
        join(options.profileDir, `kube-apiserver-${variant}.pb.gz`),
        async (stop) => {
          let writes = 0;
          while (!stop()) {
            const n = 10;
            await latencyRound(api, owner, `bench-prof-${variant.toLowerCase()}-${batch++}`, n);
            writes += n * REQUESTS.length;
          }
          return writes;
        },
      );
      await uninstall[variant]();
      profiles.push({ variant, ...profile });
      log(
        `admission: profile ${variant}: ${profile.admissionCpuMsPerWrite} ms admission CPU per write of ${profile.totalCpuMsPerWrite} ms (${profile.writes} writes)`,
      );
    }
  } finally {
    owner.close();
  }
  load.end = currentLoad();
  const all = (kind: RequestKind): Record<Variant, number[]> =>
    Object.fromEntries(
      VARIANTS.map((v) => [v, rounds.filter((r) => r.variant === v).flatMap((r) => r.samples[kind])]),
    ) as Record<Variant, number[]>;
  return {
    samplesPerRound: options.samples,
    rounds: rounds.map((r) => ({
      variant: r.variant,
      p99: Object.fromEntries(REQUESTS.map((k) => [k, round(percentile(r.samples[k], 0.99), 2)])) as Record<
        RequestKind,
        number
      >,
    })),
    requests: Object.fromEntries(REQUESTS.map((k) => [k, latencyStat(all(k))])) as Record<RequestKind, LatencyStat>,
    load,
    nativeNotes: native.notes,
    profiles,
    commands: [
      `# native policies: ${native.command} | kubectl create -f - (in apply order; deleted in reverse after each round)`,
      `# static manifests: ${staticSet.command}, its two plugin files written into the directory kube-apiserver was started with (--admission-control-config-file), in force once /metrics reports their hash; removed after each round`,
      `# profiles: GET /debug/pprof/profile?seconds=${options.profileSeconds} on kube-apiserver while the same writes run in batches of 10 of each kind, per variant after the timed rounds; go tool pprof -top -cum -unit=ms -nodecount=100000 -focus='k8s.io/apiserver/pkg/admission/plugin/(policy|webhook)' -ignore='admission/plugin/policy/manifest' FILE`,
      '# native floor: one ValidatingAdmissionPolicy whose one validation is `true` and one MutatingAdmissionPolicy whose matchCondition is `false`, each bound to Machines (bench/native.ts nativeFloor)',
    ],
  };
}
