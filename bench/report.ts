// Renders one run's figures as the results section of BENCHMARKS.md (between markers, so the intro stays by hand).
import { readFileSync, writeFileSync } from 'node:fs';
import { REQUESTS, VARIANTS, type AdmissionFigure, type RequestKind, type Variant } from './admission.js';
import type { AuditFigure } from './cluster.js';
import type { EngineRow } from './engine.js';
import type { HttpFigure } from './http.js';
import type { MachineDescription } from './machine.js';
import type { ProfileFigure } from './profile.js';
import { median, round } from './measure.js';
import type { StartupRow } from './startup.js';
import type { ValidateFigure } from './validate-cli.js';

export const START = '<!-- bench:results:start -->';
export const END = '<!-- bench:results:end -->';

export interface Results {
  date: string;
  machine: MachineDescription;
  loadAtEnd: number;
  pinning: string;
  commands: string[];
  engine?: EngineRow[];
  http?: HttpFigure;
  profile?: ProfileFigure[];
  startup?: StartupRow[];
  validate?: ValidateFigure;
  audit?: AuditFigure;
  admission?: AdmissionFigure;
  /** Figures this run left out, and why. */
  omitted: string[];
}

const ms = (us: number): string => (us / 1000).toFixed(2);
const yes = (ok: boolean): string => (ok ? 'met' : '**not met**');

function table(head: string[], rows: Array<Array<string | number>>): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

function engineSection(rows: EngineRow[]): string {
  const main = table(
    [
      'review',
      'bytes',
      'decision',
      'JSON.parse µs',
      'envelope check µs',
      'engine µs',
      'engine / parse',
      'target < 1',
      'rendered CEL in process µs',
      'CEL / engine',
    ],
    rows.map((r) => [
      r.name,
      r.bytes,
      r.decision,
      r.jsonParseUs,
      r.envelopeUs,
      r.engineUs,
      r.ratio,
      yes(r.ratio < 1),
      r.celUs,
      round(r.celUs / r.engineUs, 1),
    ]),
  );
  const mut = rows
    .filter((r) => r.cloneUs !== undefined)
    .map(
      (r) =>
        `- ${r.name}: the copy of what rules may change ${r.cloneUs} µs (a deep copy of the whole object would be ${r.fullCopyUs} µs, structuredClone ${r.structuredCloneUs} µs), the diff ${r.diffUs} µs, the rules and the validation of the mutated object ${r.rulesUs} µs.`,
    );
  return `### 1. Engine per review, in process\n\n${main}\n\nEngine = \`handle(webhook, policy, input)\` (src/admission/handle.ts) on an input already parsed; envelope check = \`parseAdmissionReview\` (ajv); rendered CEL in process = the same policy's admission policies (\`admission-policy render\`) run on the same input by @marcbachmann/cel-js through test/native/evaluator (CEL as the one source of each rule, evaluated by the webhook), the same verdict checked first; the evaluator converts a request into CEL values once per object and keeps it, so this is the evaluation alone, a lower bound. Each figure is the median of 9 samples taken in turns.\n\nWhere a mutation's time goes:\n${mut.join('\n')}\n`;
}

/**
 * Throughput targets at the default settings, on the commonest request that still reaches each webhook (bench/http.ts
 * says which and why).
 */
const THROUGHPUT_TARGET: Record<HttpFigure['pairs'][number]['id'], number> = {
  validate: 0.85,
  mutate: 0.8,
};

function httpSection(h: HttpFigure): string {
  const parts: string[] = ['### 2. Webhook over HTTPS keep-alive, against the floor\n'];
  for (const pair of h.pairs) {
    const target = THROUGHPUT_TARGET[pair.id];
    parts.push(`**${pair.title}** (${pair.bodyBytes}-byte AdmissionReview)\n`);
    parts.push(
      table(
        [
          'server',
          'max req/s (median)',
          'ratio to floor',
          target === undefined ? 'target' : `target ≥ ${target}`,
          'server CPU µs per request',
          'CPU ratio (floor / this)',
          'per round: req/s, CPU µs/req (p50 / p99 ms at saturation)',
        ],
        pair.contenders.map((c) => [
          c.label,
          c.maxRps,
          c.label === 'floor' ? 1 : c.ratio,
          c.label === 'floor' ? '' : target === undefined ? 'none' : yes(c.ratio >= target),
          c.cpuUsPerRequest,
          c.label === 'floor' ? 1 : c.cpuRatio,
          c.rounds.map((r) => `${r.rps}, ${r.cpuUs} (${ms(r.p50Us)} / ${ms(r.p99Us)})`).join('; '),
        ]),
      ),
    );
    parts.push('');
    parts.push(
      table(
        [
          'server',
          'offered req/s',
          'achieved req/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'failed',
          'target p99 < 5 ms',
          'per round: p50 / p99 / max ms',
        ],
        pair.fixedRate.map((f) => [
          f.label,
          f.offeredRps,
          f.achievedRps,
          ms(f.p50Us),
          ms(f.p99Us),
          ms(f.maxUs),
          f.failed,
          f.label === 'floor' ? '' : yes(f.p99Us < 5000),
          f.rounds.map((r) => `${ms(r.p50Us)} / ${ms(r.p99Us)} / ${ms(r.maxUs)}`).join('; '),
        ]),
      ),
    );
    parts.push('');
    parts.push(
      `At a fixed rate: ${pair.fixedRate[0]?.rounds.length ?? 0} runs of each, floor and webhook in turns; p50, p99 and achieved rate are medians over the runs, max the largest of any run.`,
    );
    parts.push('');
  }
  parts.push(
    `Logging at the default level (\`info\`; lines written to a file as a container runtime would), server CPU per request at the default less at \`--log-level warn\`: ${h.defaultLog
      .map(
        (d) =>
          `/${d.webhook} **${d.usPerRequest} µs** (${d.linesPerRequest} lines per request${d.linesPerRequest > 0 ? `, ${d.bytesPerLine} bytes each` : ''})`,
      )
      .join(', ')}.`,
  );
  parts.push(
    `\nWebhook memory after the load: RSS ${h.afterLoadMemory.rssMiB} MiB, peak ${h.afterLoadMemory.peakMiB} MiB.`,
  );
  return parts.join('\n');
}

function validateSection(v: ValidateFigure): string {
  const mb = (v.bytes / 2 ** 20).toFixed(1);
  return (
    `### 3. \`hookkeeper validate\` on ${v.documents.toLocaleString('en')} documents\n\n${table(
      ['command', 'ms (median)', 'each run, ms', 'one document, ms', 'peak RSS MiB'],
      [
        [
          '`validate` (built CLI, text output)',
          median(v.validateMs),
          v.validateMs.join(', '),
          v.oneDocValidateMs,
          v.validatePeakMiB,
        ],
        ['floor: read + `yaml` parse only', median(v.parseMs), v.parseMs.join(', '), v.oneDocParseMs, v.parsePeakMiB],
      ],
    )}\n\n` +
    `${v.files} files, ${mb} MiB of Machine manifests, ${v.validateMs.length} rounds in turns. Ratio validate / parse (median over rounds of the two runs' ratio): **${v.ratio}** (target ≤ 1.5: ${yes(v.ratio <= 1.5)}); ` +
    `without the one-document (start-up) times: ${v.marginalRatio}.\n`
  );
}

function liveHeapOf(a: AuditFigure, objects: number): number {
  return a.liveHeap.find((h) => h.objects === objects && h.policy === 'no-findings')?.peakMiB ?? Number.NaN;
}

function auditSection(a: AuditFigure): string {
  return (
    `### 4. \`hookkeeper audit\` of ${a.objects.toLocaleString('en')} Machines through kube-apiserver\n\n${table(
      ['command', 'ms (median)', 'each run, ms', 'peak RSS MiB'],
      [
        ['`audit` (built CLI, JSON output)', median(a.auditMs), a.auditMs.join(', '), a.auditPeakMiB],
        [
          'floor: paginated list (limit 500), JSON.parse per page',
          median(a.listMs),
          a.listMs.join(', '),
          a.listPeakMiB,
        ],
        ['`audit`, kubeconfig with `disable-compression: true`', median(a.plainMs), a.plainMs.join(', '), ''],
      ],
    )}\n\n` +
    `Ratio audit / list (median over rounds of the two runs' ratio): **${a.ratio}** (target ≤ 1.2: ${yes(a.ratio <= 1.2)}); without gzip, as the floor lists: ${a.plainRatio}. ` +
    `Runs alternate audit, list, audit without gzip.\n\n` +
    `Memory, as what the audit keeps: peak live heap (after a forced full GC, every 20 ms), in runs of their own. With a policy under which no ` +
    `object has a finding, only the audit's own memory is left: ${liveHeapOf(a, a.smaller.objects)} MiB at ${a.smaller.objects.toLocaleString('en')} objects and ` +
    `${liveHeapOf(a, a.objects)} MiB at ${a.objects.toLocaleString('en')} (flat: ${yes(liveHeapOf(a, a.objects) <= liveHeapOf(a, a.smaller.objects) * 1.2)}, within 20%). ` +
    `Findings are kept for the report, so with them the heap grows by what they hold:\n\n${table(
      ['objects', 'policy', 'findings', 'peak live heap MiB'],
      a.liveHeap.map((h) => [h.objects.toLocaleString('en'), h.policy, h.findings, h.peakMiB]),
    )}\n\n` +
    `Peak RSS, which also counts garbage V8 has not collected yet (it lets the heap grow under allocation pressure before it collects): ` +
    `${a.auditPeakMiB} MiB at ${a.objects.toLocaleString('en')} objects, ${a.smaller.auditPeakMiB} MiB at ${a.smaller.objects.toLocaleString('en')}.\n`
  );
}

const VARIANT_LABEL: Record<Variant, string> = {
  none: 'no admission',
  hookkeeper: 'hookkeeper webhook',
  floor: 'floor webhook (allows all, same registration)',
  native: 'native admission policies',
  static: "static manifests (the same policies, from the API server's disk)",
  nativeFloor: 'native floor (one `true` validation, one never-matching mutation)',
};

const REQUEST_LABEL: Record<RequestKind, string> = {
  controlPlaneCreate: 'control-plane Machine CREATE',
  workerCreate: 'worker Machine CREATE',
  updateNoHook: 'Machine UPDATE touching no hook (a label)',
  updateRemoveHook: 'Machine UPDATE removing a hook, by its owner',
};

const pct = (v: number): string => `${v > 0 ? '+' : ''}${v}%`;

/** What a variant adds over none, in ms at p50. */
const added = (s: AdmissionFigure['requests'][RequestKind], v: Variant): number => s[v].p50 - s.none.p50;
const ratio = (a: number, b: number): string => (b > 0 ? String(Math.round((a / b) * 100) / 100) : 'n/a');

function admissionSection(a: AdmissionFigure): string {
  const rows = REQUESTS.flatMap((k) =>
    VARIANTS.map((v) => {
      const s = a.requests[k];
      return [
        REQUEST_LABEL[k],
        VARIANT_LABEL[v],
        s[v].p50,
        s[v].p99,
        v === 'none' ? '' : pct(s[v].p50OverheadPct),
        v === 'none' ? '' : pct(s[v].p99OverheadPct),
      ];
    }),
  );
  // The goals of the figure, each a ratio from this run.
  const goals = REQUESTS.map((k) => {
    const s = a.requests[k];
    const common = k === 'updateNoHook' || k === 'workerCreate';
    return [
      REQUEST_LABEL[k],
      common ? `${pct(s.hookkeeper.p50OverheadPct)} / ${pct(s.hookkeeper.p99OverheadPct)} (goal <= +5%)` : '',
      k === 'updateRemoveHook' ? `${ratio(added(s, 'hookkeeper'), added(s, 'floor'))} (goal <= 1.2)` : '',
      `${ratio(added(s, 'native'), added(s, 'nativeFloor'))} (goal <= 1.5)`,
      `${ratio(added(s, 'static'), added(s, 'nativeFloor'))}`,
    ];
  });
  const notes =
    a.nativeNotes.length === 0
      ? 'render printed no notes.'
      : `render's notes (where native mode differs from the webhook):\n\n${a.nativeNotes.map((n) => `- ${n}`).join('\n')}`;
  return (
    `### 5. Admission overhead through kube-apiserver: none, webhook and its floor, native policies (API objects and static manifests) and their floor\n\n${table(
      ['request', 'admission', 'p50 ms', 'p99 ms', 'p50 vs none', 'p99 vs none'],
      rows,
    )}\n\n${table(
      [
        'request',
        'webhook vs none, p50 / p99',
        'webhook added / floor webhook added (p50)',
        'native added / native floor added (p50)',
        'static added / native floor added (p50)',
      ],
      goals,
    )}\n\n` +
    `${a.samplesPerRound} of each per round, one at a time: control-plane CREATEs (each with an etcd-operator hook), worker ` +
    `CREATEs and label UPDATEs by the admin identity, then UPDATEs removing that hook by the etcd operator; rounds with ` +
    `no admission, the hookkeeper webhook, the floor server registered under hookkeeper's own webhook configurations ` +
    `(so the same requests reach it), the native policies \`hookkeeper admission-policy render\` prints for the embedded ` +
    `default policy, the same policies as the static manifests \`render --static\` writes (loaded by the API server from ` +
    `the directory it was started with), and the native floor, in turns; each is installed, seen enforced, measured and removed before ` +
    `the next. Load average (1 min) ${a.load.start} at the start, ${a.load.end} at the end. p99 per round (ms, in the ` +
    `order of the table): ${a.rounds.map((r) => `${r.variant} ${REQUESTS.map((k) => r.p99[k]).join('/')}`).join('; ')}.\n\n${profilesPart(a)}${notes}\n`
  );
}

/** Where the time inside kube-apiserver goes: its CPU in the admission plugins per write, per variant. */
function profilesPart(a: AdmissionFigure): string {
  if (a.profiles.length === 0) return '';
  const rows = a.profiles.map((p) => [
    VARIANT_LABEL[p.variant],
    p.writes,
    p.admissionCpuMsPerWrite,
    p.totalCpuMsPerWrite,
    p.top
      .slice(0, 4)
      .map((t) => `${t.fn.replace(/^k8s\.io\/apiserver\/pkg\/admission\/plugin\//, '')} ${t.cumMsPerWrite}`)
      .join('; '),
  ]);
  return `kube-apiserver's CPU profile with each variant in force (the same writes, after the timed rounds):\n\n${table(
    [
      'admission',
      'writes',
      'admission CPU ms/write',
      'API server CPU ms/write',
      'heaviest admission functions (cum ms/write)',
    ],
    rows,
  )}\n\n`;
}

function startupSection(rows: StartupRow[]): string {
  return `### 6. Start-up to ready and idle memory\n\n${table(
    ['server', 'start-up to /readyz 200, ms (median)', 'ratio to floor', 'each run, ms', 'idle RSS MiB'],
    rows.map((r) => [r.kind, r.medianStartupMs, r.ratio, r.startupMs.join(', '), r.idleRssMiB]),
  )}\n`;
}

function profileSection(figures: ProfileFigure[]): string {
  const parts = ['### 2b. Where the CPU goes, per request (CPU profiles under the same load)', ''];
  for (const f of figures) {
    const total = (key: 'floorUs' | 'webhookUs'): number =>
      Math.round(f.rows.reduce((n, row) => n + row[key], 0) * 10) / 10;
    parts.push(
      `**/${f.webhook}${f.webhook === 'mutate' ? ', control-plane Machine CREATE' : ', worker Machine CREATE with a hook'}** (${f.requests.floor} floor and ${f.requests.webhook} webhook requests profiled)`,
      '',
      table(
        ['component (self time)', 'floor µs', 'webhook µs', 'difference µs'],
        [
          ...f.rows.map((row) => [
            row.component,
            row.floorUs,
            row.webhookUs,
            Math.round((row.webhookUs - row.floorUs) * 10) / 10,
          ]),
          [
            '**total**',
            total('floorUs'),
            total('webhookUs'),
            Math.round((total('webhookUs') - total('floorUs')) * 10) / 10,
          ],
        ],
      ),
      '',
      `Most self time in hookkeeper's code and libraries (µs per request): ${f.top.map((t) => `\`${t.fn}\` ${t.us}`).join('; ')}.`,
      '',
    );
  }
  parts.push(
    'A builtin such as `JSON.parse` has no frame of its own: its time is the self time of the function calling it (the request handlers). Profiling adds its own overhead, so totals are above the CPU per request of figure 2; compare the columns.',
  );
  return parts.join('\n');
}

export function renderResults(r: Results): string {
  const m = r.machine;
  const out: string[] = [
    `## Results (${r.date})`,
    '',
    `Machine: ${m.nproc} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB memory, Node ${m.node}${m.serverNode ? ` (servers on Node ${m.serverNode}, HOOKKEEPER_BENCH_NODE)` : ''}, Linux ${m.kernel}, ${m.wrk}. ` +
      `1-minute load average ${m.loadAtStart} at the start and ${r.loadAtEnd} at the end (other work on this machine moves absolutes; compare ratios).`,
    '',
    `Pinning: ${r.pinning}`,
    '',
  ];
  if (r.engine) out.push(engineSection(r.engine), '');
  if (r.http) out.push(httpSection(r.http), '');
  if (r.profile) out.push(profileSection(r.profile), '');
  if (r.validate) out.push(validateSection(r.validate), '');
  if (r.audit) out.push(auditSection(r.audit), '');
  if (r.admission) out.push(admissionSection(r.admission), '');
  if (r.startup) out.push(startupSection(r.startup), '');
  if (r.omitted.length > 0) out.push('### Not measured in this run', '', ...r.omitted.map((o) => `- ${o}`), '');
  out.push('### Commands', '', '```', ...r.commands, '```');
  return out.join('\n');
}

/** Replaces the section between the markers, or appends it with markers. */
export function writeResults(file: string, section: string): void {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = '# Benchmarks\n';
  }
  const block = `${START}\n${section}\n${END}`;
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  const next =
    a !== -1 && b > a ? `${text.slice(0, a)}${block}${text.slice(b + END.length)}` : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}
