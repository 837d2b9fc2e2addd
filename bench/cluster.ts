// Figures 4 and 5, through a real kube-apiserver + etcd started by the e2e harness (test/e2e/harness): the
// admission overhead hookkeeper adds to Machine writes, and `hookkeeper audit` against a bare paginated list.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { caBundle } from '../src/certs/pki.js';
import type { KubeObject } from '../src/core/types.js';
import { renderWebhookConfigurations } from '../src/deploy/render.js';
import { PAGE_SIZE } from '../src/kube/lister.js';
import { startControlPlane, type ControlPlane } from '../test/e2e/harness/control-plane.js';
import { ownCrdSet } from '../test/e2e/harness/crds.js';
import { registerWebhooks, startHookkeeper, waitForEnforcement } from '../test/e2e/harness/hookkeeper.js';
import { createRaw } from '../test/e2e/harness/http.js';
import { writeKubeConfig } from '../test/e2e/harness/identities.js';
import { pollUntil } from '../test/e2e/harness/processes.js';
import { readSettings } from '../test/e2e/harness/settings.js';
import { median, round } from './measure.js';
import { prepareTls, REPO, startProcess, transpileFloor } from './servers.js';
import { manifest, timed } from './validate-cli.js';

const MACHINES = '/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines';
const CONFIG_NAME = 'hookkeeper-e2e'; // the name registerWebhooks gives both configurations
const FLOOR_NAME = 'bench-floor';

export interface LatencyStat {
  withoutP50: number;
  withoutP99: number;
  withP50: number;
  withP99: number;
  /** (p99 with - p99 without) / p99 without, in percent: the target is under 5. */
  p99OverheadPct: number;
  /** The same with the floor server registered in hookkeeper's place: what any webhook costs. */
  floorP50: number;
  floorP99: number;
  floorP99OverheadPct: number;
}

type Variant = 'none' | 'hookkeeper' | 'floor';

export interface AdmissionFigure {
  samplesPerRound: number;
  rounds: Array<{ variant: Variant; createP99: number; updateP99: number }>;
  create: LatencyStat;
  update: LatencyStat;
}

export interface AuditFigure {
  objects: number;
  auditMs: number[];
  listMs: number[];
  /** Median over rounds of audit time / list time in the same round: the target is at most 1.2. */
  ratio: number;
  /**
   * The same audit with the kubeconfig's disable-compression: the floor asks for no gzip, and on loopback gzip only
   * costs CPU (the API server's to compress, the audit's to inflate) on a machine both share.
   */
  plainMs: number[];
  plainRatio: number;
  auditPeakMiB: number;
  listPeakMiB: number;
  /** Peak RSS of the same audit over fewer objects: flat memory means about the same. */
  smaller: { objects: number; auditPeakMiB: number };
  /**
   * Peak live heap (heapUsed right after a forced full GC, every 20 ms, in runs of their own) at both sizes: what the
   * audit keeps, where RSS also counts garbage V8 has not collected yet. Once with the bench's objects, a third of
   * which get a finding (their etcd hook's owner has no service account in this cluster), and once with a policy that
   * registers that owner by user, so that no object has a finding and only the audit's own memory is left.
   */
  liveHeap: Array<{ objects: number; policy: 'default' | 'no-findings'; findings: number; peakMiB: number }>;
  commands: string[];
}

/** Preloaded into a probed run (node --expose-gc --import): peak live heap, written where HOOKKEEPER_HEAP_PROBE says. */
const HEAP_PROBE = `import { writeFileSync } from 'node:fs';
let peak = 0;
const sample = () => { globalThis.gc(); peak = Math.max(peak, process.memoryUsage().heapUsed); };
setInterval(sample, 20).unref();
process.on('exit', () => { sample(); writeFileSync(process.env.HOOKKEEPER_HEAP_PROBE, JSON.stringify({ peakHeapBytes: peak })); });
`;

/** The default policy, but the etcd hook's owner registered by user, which the audit cannot look up: no orphaned-owner findings. */
const NO_FINDINGS_POLICY = `apiVersion: hookkeeper.io/v1alpha1
kind: Policy
owners:
  clusteroperator/etcd:
    users: [system:serviceaccount:openshift-etcd-operator:etcd-operator]
`;

class Api {
  private readonly agent: Agent;
  constructor(private readonly plane: ControlPlane) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 32, ca: plane.caPem });
  }

  call(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; body: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.plane.server}${path}`,
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.plane.identities.admin.token}`,
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async expect(status: number, method: string, path: string, body?: unknown, contentType?: string): Promise<void> {
    const res = await this.call(method, path, body, contentType);
    if (res.status !== status)
      throw new Error(`${method} ${path}: HTTP ${res.status} (wanted ${status}): ${res.body.slice(0, 500)}`);
  }

  close(): void {
    this.agent.destroy();
  }
}

function named(i: number, prefix: string): KubeObject {
  const m = manifest(i);
  (m['metadata'] as Record<string, unknown>)['name'] = `${prefix}-${i}`;
  return m;
}

/** Runs `fn` over 0..n-1 with `width` in flight. */
async function inParallel(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** One at a time, so each latency is the API server's (and the webhook's) alone: n creates, then n updates. */
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

function p(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

function stat(without: number[], withHook: number[], floor: number[]): LatencyStat {
  const w99 = p(without, 0.99);
  const h99 = p(withHook, 0.99);
  const f99 = p(floor, 0.99);
  return {
    withoutP50: round(p(without, 0.5), 2),
    withoutP99: round(w99, 2),
    withP50: round(p(withHook, 0.5), 2),
    withP99: round(h99, 2),
    p99OverheadPct: round(((h99 - w99) / w99) * 100, 1),
    floorP50: round(p(floor, 0.5), 2),
    floorP99: round(f99, 2),
    floorP99OverheadPct: round(((f99 - w99) / w99) * 100, 1),
  };
}

/** A worker claiming the reserved etcd hook name: only hookkeeper refuses it, so a dry run tells whether it is registered. */
async function enforced(api: Api): Promise<boolean> {
  const probe = named(1, 'bench-probe');
  (probe['spec'] as Record<string, unknown>)['lifecycleHooks'] = {
    preDrain: [{ name: 'EtcdQuorumOperator', owner: 'someone' }],
  };
  const res = await api.call('POST', `${MACHINES}?dryRun=All`, probe);
  return res.status !== 201;
}

async function unregister(api: Api, name: string): Promise<void> {
  await api.expect(200, 'DELETE', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`);
  await api.expect(200, 'DELETE', `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${name}`);
  if (name === CONFIG_NAME)
    await pollUntil(
      'the API server to stop calling hookkeeper',
      30_000,
      async () => ((await enforced(api)) ? undefined : true),
      200,
    );
  // The floor allows everything, so nothing shows when the API server's informer has caught up: give it time.
  else await new Promise((r) => setTimeout(r, 3_000));
}

/** hookkeeper's own webhook configurations, pointed at the floor server instead. */
async function registerFloor(plane: ControlPlane, url: string, caPem: string): Promise<void> {
  for (const [i, config] of renderWebhookConfigurations({
    caBundle: caBundle(caPem),
    url,
    name: FLOOR_NAME,
  }).entries()) {
    await createRaw(
      plane.server,
      plane.caPem,
      plane.identities.admin.token,
      `/apis/admissionregistration.k8s.io/v1/${i === 0 ? 'validating' : 'mutating'}webhookconfigurations`,
      config,
    );
  }
  await new Promise((r) => setTimeout(r, 3_000));
}

export async function clusterFigures(
  options: { samples: number; rounds: number; objects: number; smaller: number; repeats: number },
  dir: string,
  log: (line: string) => void,
): Promise<{ admission: AdmissionFigure; audit: AuditFigure }> {
  const settings = readSettings();
  const plane = await startControlPlane({ settings, crds: ownCrdSet(settings.repoRoot) });
  const api = new Api(plane);
  try {
    // The built CLI at the default log level, as the image runs it; the floor is built too.
    const hookkeeper = await startHookkeeper(plane, { built: true });
    const tls = await prepareTls(dir);
    const floor = await startProcess({ kind: 'floor' }, tls, transpileFloor(dir), dir);
    // Figure 5: rounds with nothing, hookkeeper, and the floor registered, in turns.
    const rounds: Array<{ variant: Variant; create: number[]; update: number[] }> = [];
    await latencyRound(api, 'bench-warm', options.samples); // connections, caches, the API server's own warm-up
    for (let r = 0; r < options.rounds; r++) {
      for (const variant of ['none', 'hookkeeper', 'floor'] as const) {
        if (variant === 'hookkeeper') {
          await registerWebhooks(plane, hookkeeper);
          await waitForEnforcement(plane);
        } else if (variant === 'floor') {
          await registerFloor(plane, `https://127.0.0.1:${floor.port}`, tls.caPem);
        }
        const result = await latencyRound(api, `bench-r${r}-${variant}`, options.samples);
        if (variant !== 'none') await unregister(api, variant === 'hookkeeper' ? CONFIG_NAME : FLOOR_NAME);
        rounds.push({ variant, ...result });
        log(
          `admission: round ${r + 1} ${variant}: create p99 ${round(p(result.create, 0.99), 1)} ms, update p99 ${round(p(result.update, 0.99), 1)} ms`,
        );
      }
    }
    await floor.stop();
    const all = (variant: Variant, key: 'create' | 'update'): number[] =>
      rounds.filter((r) => r.variant === variant).flatMap((r) => r[key]);
    const admission: AdmissionFigure = {
      samplesPerRound: options.samples,
      rounds: rounds.map((r) => ({
        variant: r.variant,
        createP99: round(p(r.create, 0.99), 2),
        updateP99: round(p(r.update, 0.99), 2),
      })),
      create: stat(all('none', 'create'), all('hookkeeper', 'create'), all('floor', 'create')),
      update: stat(all('none', 'update'), all('hookkeeper', 'update'), all('floor', 'update')),
    };

    // Figure 4: audit against a bare list, at `smaller` objects (memory only) and at `objects`.
    const kubeconfig = join(dir, 'kubeconfig');
    await writeKubeConfig(kubeconfig, plane.kubeConfig('admin'));
    writeFileSync(join(dir, 'ca.crt'), plane.caPem);
    writeFileSync(join(dir, 'token'), plane.identities.admin.token, { mode: 0o600 });
    const cache = join(REPO, 'node_modules', '.cache', 'hookkeeper-bench');
    mkdirSync(cache, { recursive: true });
    const floorFile = join(cache, 'list-floor.mjs');
    writeFileSync(
      floorFile,
      ts.transpileModule(readFileSync(join(REPO, 'bench', 'list-floor.ts'), 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText,
    );
    const probeFile = join(cache, 'heap-probe.mjs');
    writeFileSync(probeFile, HEAP_PROBE);
    const noFindingsPolicy = join(dir, 'no-findings-policy.yaml');
    writeFileSync(noFindingsPolicy, NO_FINDINGS_POLICY);
    const auditArgs = [
      process.execPath,
      join(REPO, 'dist', 'cli', 'main.js'),
      'audit',
      '--kubeconfig',
      kubeconfig,
      '--output',
      'json',
    ];
    const plainKubeconfig = join(dir, 'kubeconfig-no-gzip');
    const exported = JSON.parse(plane.kubeConfig('admin').exportConfig()) as {
      clusters: Array<{ cluster: Record<string, unknown> }>;
    };
    for (const c of exported.clusters) c.cluster['disable-compression'] = true;
    writeFileSync(plainKubeconfig, JSON.stringify(exported), { mode: 0o600 });
    const plainArgs = auditArgs.map((a) => (a === kubeconfig ? plainKubeconfig : a));
    // The floor pages as the audit does: the lister's own page size.
    const listArgs = [
      process.execPath,
      floorFile,
      plane.server,
      join(dir, 'ca.crt'),
      join(dir, 'token'),
      String(PAGE_SIZE),
    ];
    const runAudit = async (
      objects: number,
      args = auditArgs,
    ): Promise<{ ms: number; peakMiB: number; findings: number }> => {
      const run = await timed(args);
      const report = JSON.parse(run.stdout) as { summary?: { objects?: number }; findings?: unknown[] };
      if (report.summary?.objects !== objects)
        throw new Error(`audit saw ${report.summary?.objects} objects, not ${objects}`);
      return { ...run, findings: report.findings?.length ?? 0 };
    };
    const liveHeap: AuditFigure['liveHeap'] = [];
    const probe = async (objects: number): Promise<void> => {
      for (const policy of ['default', 'no-findings'] as const) {
        const out = join(dir, 'heap-probe.json');
        const node = [process.execPath, '--expose-gc', '--import', pathToFileURL(probeFile).href];
        const run = await runAudit(objects, [
          'env',
          `HOOKKEEPER_HEAP_PROBE=${out}`,
          ...node,
          ...auditArgs.slice(1),
          ...(policy === 'default' ? [] : ['--config', noFindingsPolicy]),
        ]);
        if (policy === 'no-findings' && run.findings !== 0)
          throw new Error(`the no-findings policy left ${run.findings} findings`);
        const { peakHeapBytes } = JSON.parse(readFileSync(out, 'utf8')) as { peakHeapBytes: number };
        liveHeap.push({ objects, policy, findings: run.findings, peakMiB: round(peakHeapBytes / 2 ** 20, 1) });
        log(
          `audit: peak live heap ${round(peakHeapBytes / 2 ** 20, 1)} MiB at ${objects} objects, ${run.findings} findings (${policy} policy)`,
        );
      }
    };
    const runList = async (objects: number): Promise<{ ms: number; peakMiB: number }> => {
      const run = await timed(listArgs);
      if ((JSON.parse(run.stdout) as { items: number }).items !== objects)
        throw new Error(`list saw the wrong number of objects: ${run.stdout}`);
      return run;
    };
    let created = 0;
    const fill = async (to: number): Promise<void> => {
      const from = created;
      await inParallel(to - from, 32, (i) => api.expect(201, 'POST', MACHINES, named(from + i, 'bench-audit')));
      created = to;
      log(`audit: ${to} Machines stored`);
    };
    await fill(options.smaller);
    const small = await runAudit(options.smaller);
    await probe(options.smaller);
    await fill(options.objects);
    const auditRuns: Array<{ ms: number; peakMiB: number }> = [];
    const listRuns: Array<{ ms: number; peakMiB: number }> = [];
    const plainRuns: Array<{ ms: number; peakMiB: number }> = [];
    await runList(options.objects); // warm the API server's watch cache and the page cache
    for (let r = 0; r < options.repeats; r++) {
      auditRuns.push(await runAudit(options.objects));
      listRuns.push(await runList(options.objects));
      plainRuns.push(await runAudit(options.objects, plainArgs));
      log(
        `audit: round ${r + 1}: audit ${round(auditRuns.at(-1)?.ms ?? 0, 0)} ms, list ${round(listRuns.at(-1)?.ms ?? 0, 0)} ms, audit without gzip ${round(plainRuns.at(-1)?.ms ?? 0, 0)} ms`,
      );
    }
    await probe(options.objects);
    const show = (args: string[]): string =>
      args
        .map((a) =>
          a
            .replace(dir, '$TMP')
            .replace(cache, 'node_modules/.cache/hookkeeper-bench')
            .replace(`${REPO}/`, '')
            .replace(process.execPath, 'node')
            .replace(plane.server, 'https://127.0.0.1:$APISERVER'),
        )
        .join(' ');
    const audit: AuditFigure = {
      objects: options.objects,
      auditMs: auditRuns.map((x) => round(x.ms, 0)),
      listMs: listRuns.map((x) => round(x.ms, 0)),
      // Each round's audit over the list run next to it: drift on a shared machine moves both alike.
      ratio: round(median(auditRuns.map((x, i) => x.ms / (listRuns[i] as { ms: number }).ms)), 2),
      plainMs: plainRuns.map((x) => round(x.ms, 0)),
      plainRatio: round(median(plainRuns.map((x, i) => x.ms / (listRuns[i] as { ms: number }).ms)), 2),
      auditPeakMiB: median(auditRuns.map((x) => x.peakMiB)),
      listPeakMiB: median(listRuns.map((x) => x.peakMiB)),
      smaller: { objects: options.smaller, auditPeakMiB: small.peakMiB },
      liveHeap,
      commands: [
        show(auditArgs),
        show(listArgs),
        `${show(plainArgs)}   # the kubeconfig with disable-compression: true`,
        `# live heap, in runs of their own at both sizes: HOOKKEEPER_HEAP_PROBE=$TMP/heap-probe.json node --expose-gc --import node_modules/.cache/hookkeeper-bench/heap-probe.mjs ${show(auditArgs.slice(1))} [--config $TMP/no-findings-policy.yaml]`,
      ],
    };
    return { admission, audit };
  } finally {
    api.close();
    await plane.stop();
  }
}
