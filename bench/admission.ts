// Figure 5: Machine CREATE and UPDATE latency through a real kube-apiserver with no admission, with hookkeeper's
// native admission policies, with the hookkeeper webhook and with a bare floor webhook, in turns in the same run.
import { caBundle } from '../src/certs/pki.js';
import type { KubeObject } from '../src/core/types.js';
import { renderWebhookConfigurations } from '../src/deploy/render.js';
import type { ControlPlane } from '../testing/control-plane/control-plane.js';
import { registerWebhooks, waitForEnforcement, type Hookkeeper } from '../testing/control-plane/hookkeeper.js';
import { createRaw } from '../testing/control-plane/http.js';
import { pollUntil } from '../testing/control-plane/processes.js';
import type { Api } from './api.js';
import { inParallel, MACHINES, named } from './api.js';
import { round } from './measure.js';
import { installNative, removeNative, type NativePolicies } from './native.js';

const CONFIG_NAME = 'hookkeeper-e2e'; // the name registerWebhooks gives both configurations
const FLOOR_NAME = 'bench-floor';
const ETCD_HOOK = 'EtcdQuorumOperator';

export const VARIANTS = ['none', 'native', 'hookkeeper', 'floor'] as const;
export type Variant = (typeof VARIANTS)[number];

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
  rounds: Array<{ variant: Variant; createP99: number; updateP99: number }>;
  create: LatencyStat;
  update: LatencyStat;
  /** render's notes: what the native policies do differently from the webhook. */
  nativeNotes: string[];
  commands: string[];
}

/** One at a time, so each latency is the API server's (and its admission's) alone: n creates, then n updates. */
async function latencyRound(api: Api, prefix: string, n: number): Promise<{ create: number[]; update: number[] }> {
  const create: number[] = [];
  const update: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await api.expect(201, 'POST', MACHINES, named(i, prefix));
    create.push(performance.now() - t);
  }
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await api.expect(
      200,
      'PATCH',
      `${MACHINES}/${prefix}-${i}`,
      { metadata: { labels: { 'bench.hookkeeper.io/touched': String(i) } } },
      'application/merge-patch+json',
    );
    update.push(performance.now() - t);
  }
  await inParallel(n, 16, (i) => api.expect(200, 'DELETE', `${MACHINES}/${prefix}-${i}`));
  return { create, update };
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
  return {
    none: one(samples.none),
    native: one(samples.native),
    hookkeeper: one(samples.hookkeeper),
    floor: one(samples.floor),
  };
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
    floor: { url: string; caPem: string };
  },
  options: { samples: number; rounds: number },
  log: (line: string) => void,
): Promise<AdmissionFigure> {
  const { plane, api, hookkeeper, native, floor } = deps;
  const install: Record<Variant, () => Promise<void>> = {
    none: async () => {},
    native: async () => {
      await installNative(api, native);
      await waitFor(api, 'the API server to enforce the native policies', true);
    },
    hookkeeper: async () => {
      await registerWebhooks(plane, hookkeeper);
      await waitForEnforcement(plane);
    },
    floor: async () => {
      await registerFloor(plane, floor.url, floor.caPem);
      await settle();
    },
  };
  const uninstall: Record<Variant, () => Promise<void>> = {
    none: async () => {},
    native: async () => {
      await removeNative(api, native);
      await waitFor(api, 'the API server to stop enforcing the native policies', false);
    },
    hookkeeper: async () => {
      await unregisterWebhooks(api, CONFIG_NAME);
      await waitFor(api, 'the API server to stop calling hookkeeper', false);
    },
    floor: async () => {
      await unregisterWebhooks(api, FLOOR_NAME);
      await settle();
    },
  };

  // Nothing may be enforced when "none" is measured: the native policies' dry runs prove they pass the same probes.
  if ((await enforcement(api)).validating)
    throw new Error('something refuses the probe before any variant is installed');
  const rounds: Array<{ variant: Variant; create: number[]; update: number[] }> = [];
  await latencyRound(api, 'bench-warm', options.samples); // connections, caches, the API server's own warm-up
  for (let r = 0; r < options.rounds; r++) {
    for (const variant of VARIANTS) {
      await install[variant]();
      const result = await latencyRound(api, `bench-r${r}-${variant}`, options.samples);
      await uninstall[variant]();
      rounds.push({ variant, ...result });
      log(
        `admission: round ${r + 1} ${variant}: create p99 ${round(percentile(result.create, 0.99), 1)} ms, update p99 ${round(percentile(result.update, 0.99), 1)} ms`,
      );
    }
  }
  const all = (key: 'create' | 'update'): Record<Variant, number[]> =>
    Object.fromEntries(
      VARIANTS.map((v) => [v, rounds.filter((r) => r.variant === v).flatMap((r) => r[key])]),
    ) as Record<Variant, number[]>;
  return {
    samplesPerRound: options.samples,
    rounds: rounds.map((r) => ({
      variant: r.variant,
      createP99: round(percentile(r.create, 0.99), 2),
      updateP99: round(percentile(r.update, 0.99), 2),
    })),
    create: latencyStat(all('create')),
    update: latencyStat(all('update')),
    nativeNotes: native.notes,
    commands: [
      `# native policies: ${native.command} | kubectl create -f - (in apply order; deleted in reverse after each round)`,
    ],
  };
}
