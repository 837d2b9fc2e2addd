// Figures 4 and 5, through a real kube-apiserver + etcd started by the control-plane harness (testing/control-plane):
// `hookkeeper audit` against a bare paginated list, and (bench/admission.ts) what admission adds to Machine writes.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { PAGE_SIZE } from '../src/infrastructure/kube/lister.js';
import { startControlPlane } from '../testing/control-plane/control-plane.js';
import { ownCrdSet } from '../testing/control-plane/crds.js';
import { startHookkeeper } from '../testing/control-plane/hookkeeper.js';
import { writeKubeConfig } from '../testing/control-plane/identities.js';
import { readControlPlaneSettings } from '../testing/control-plane/settings.js';
import { admissionFigure, type AdmissionFigure } from './admission.js';
import { Api, inParallel, MACHINES, named } from './api.js';
import { median, round } from './measure.js';
import { assertServed, renderNative, renderStatic } from './native.js';
import { prepareTls, REPO, startProcess, transpileFloor } from './servers.js';
import { timed } from './validate-cli.js';

export type { AdmissionFigure } from './admission.js';

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

/**
 * The default policy, but with every hook owner of the stored Machines registered by user, which the audit cannot look
 * up: no orphaned-owner or unprotected-owner findings.
 */
const NO_FINDINGS_POLICY = `apiVersion: hookkeeper.io/v1alpha1
kind: Policy
owners:
  clusteroperator/etcd:
    users: [system:serviceaccount:openshift-etcd-operator:etcd-operator]
  platform/drain-guard:
    users: [drain-guard]
`;

export async function clusterFigures(
  options: {
    admission: boolean;
    audit: boolean;
    samples: number;
    rounds: number;
    /** How long kube-apiserver is CPU-profiled per policy variant. */
    profileSeconds: number;
    objects: number;
    smaller: number;
    repeats: number;
  },
  dir: string,
  log: (line: string) => void,
): Promise<{ admission?: AdmissionFigure; audit?: AuditFigure }> {
  const settings = readControlPlaneSettings();
  // Static manifests (figure 5) need the API server started with their directory, empty until that variant's rounds.
  const plane = await startControlPlane({
    settings,
    crds: ownCrdSet(settings.repoRoot),
    staticAdmission: options.admission,
  });
  const api = new Api(plane);
  try {
    let admission: AdmissionFigure | undefined;
    if (options.admission) {
      // The built CLI at the default log level, as the image runs it; the floor is built too; the native policies
      // are what the built CLI renders for this API server.
      const hookkeeper = await startHookkeeper(plane, { built: true });
      const native = await renderNative(api);
      await assertServed(api, native);
      const staticSet = await renderStatic(native, join(dir, 'static'));
      for (const note of native.notes) log(`admission: native policies: note: ${note}`);
      const tls = await prepareTls(dir);
      const floor = await startProcess({ kind: 'floor' }, tls, transpileFloor(dir), dir);
      try {
        admission = await admissionFigure(
          {
            plane,
            api,
            hookkeeper,
            native,
            staticSet,
            floor: { url: `https://127.0.0.1:${floor.port}`, caPem: tls.caPem },
          },
          { ...options, profileDir: mkdtempSync(join(tmpdir(), 'hookkeeper-bench-pprof-')) },
          log,
        );
      } finally {
        await floor.stop();
      }
    }
    if (!options.audit) return admission ? { admission } : {};

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
      join(REPO, 'dist', 'transports', 'cli', 'main.js'),
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
    ): Promise<{ ms: number; peakMiB: number; findings: number; rules: string[] }> => {
      const run = await timed(args);
      const report = JSON.parse(run.stdout) as { summary?: { objects?: number }; findings?: { rule?: string }[] };
      if (report.summary?.objects !== objects)
        throw new Error(`audit saw ${report.summary?.objects} objects, not ${objects}`);
      const rules = [...new Set((report.findings ?? []).map((f) => String(f.rule)))];
      return { ...run, findings: report.findings?.length ?? 0, rules };
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
          throw new Error(`the no-findings policy left ${run.findings} findings (${run.rules.join(', ')})`);
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
    return admission ? { admission, audit } : { audit };
  } finally {
    api.close();
    await plane.stop();
  }
}
