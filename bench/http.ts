// Figure 2: the webhook over HTTPS keep-alive against the floor, in the same run: maximum throughput in
// alternating rounds, then a fixed-rate run at half the webhook's maximum for latency. The webhook runs at the
// default log level, as users run it; beside it the same build at --log-level warn (what the default level's lines
// cost) and the webhook through tsx instead of the build. Two requests, each the commonest that still reaches its
// webhook once the API server applies the derived conditions (src/core/cel/webhook-conditions.ts): a worker
// Machine's CREATE for /validate (every CREATE is sent; workers are most Machines), and a control-plane Machine's
// CREATE for /mutate (the only one the default policy's selector sends; it gets the etcd hook, logged at info).
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { createMasterReview, createWorkerReview, WORKER_TEMPLATE_HOOK } from '../test/fixtures/hardening-machine.js';
import { median, round } from './measure.js';
import { startProcess, type RunningProcess, type ServerSpec, type Tls } from './servers.js';
import { runWrk, type WrkRun } from './wrk.js';

export interface HttpOptions {
  seconds: number;
  rounds: number;
  connections: number;
  fixedSeconds: number;
  /** Fixed-rate runs per contender, floor and webhook in turns: one run's p99 is at the mercy of the machine. */
  fixedRounds: number;
  serverCpu?: number;
  loadCpu?: number;
}

interface Contender {
  label: string;
  server: RunningProcess;
  path: string;
}

/** Which request a pair measures; the webhook's own metrics count it by webhook and decision. */
export type CaseId = 'validate' | 'mutate';

interface Pair {
  id: CaseId;
  webhook: 'validate' | 'mutate';
  title: string;
  body: string;
  bodyFile: string;
  expect: 'allowed' | 'patched';
  contenders: Contender[];
}

export interface ContenderResult {
  label: string;
  command: string;
  serverCommand: string;
  rounds: Array<{ rps: number; p50Us: number; p99Us: number; failed: number; cpuUs: number }>;
  maxRps: number;
  /** Median over rounds of (this contender / the floor in the same round). */
  ratio: number;
  /** The server's CPU time (user + system, all threads) per request at saturation, median over rounds. */
  cpuUsPerRequest: number;
  /** Median over rounds of (the floor's CPU per request / this contender's): what throughput would be on a core of its own. */
  cpuRatio: number;
}

export interface FixedRateResult {
  label: string;
  offeredRps: number;
  /** Medians over the rounds, but maxUs: the largest of any round. */
  achievedRps: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  failed: number;
  rounds: Array<{ achievedRps: number; p50Us: number; p99Us: number; maxUs: number }>;
  command: string;
}

export interface PairResult {
  id: CaseId;
  webhook: 'validate' | 'mutate';
  title: string;
  bodyBytes: number;
  contenders: ContenderResult[];
  fixedRate: FixedRateResult[];
}

export interface HttpFigure {
  pairs: PairResult[];
  /** Per webhook: server CPU the default level's logging costs (median CPU per request at the default less at warn) and what it wrote. */
  defaultLog: Array<{
    id: CaseId;
    webhook: 'validate' | 'mutate';
    usPerRequest: number;
    linesPerRequest: number;
    bytesPerLine: number;
  }>;
  afterLoadMemory: { rssMiB: number; peakMiB: number };
  serverCommands: string[];
}

function post(port: number, path: string, body: string, caPem: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca: caPem,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>);
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function getText(port: number, path: string, caPem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, ca: caPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString()));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The webhook's own count of the reviews it answered on one path with one decision, from its /metrics text. */
function answeredBy(metrics: string, webhook: string, decision: string): number {
  let n = 0;
  for (const m of metrics.matchAll(
    new RegExp(
      `^hookkeeper_admission_requests_total\\{webhook="${webhook}",[^}]*decision="${decision}"[^}]*\\} (\\d+)$`,
      'gm',
    ),
  ))
    n += Number(m[1]);
  return n;
}

/** The contender that runs the same build at --log-level warn. */
const WARN_LABEL = 'webhook, --log-level warn';

/** A benchmark of a server that answers wrongly measures nothing: check each webhook's decision first. */
async function checkDecision(pair: Pair, c: Contender, tls: Tls): Promise<void> {
  if (c.label === 'floor') return;
  const res = (await post(c.server.port, c.path, pair.body, tls.caPem))['response'] as
    { allowed?: boolean; patch?: string } | undefined;
  const got = !res?.allowed ? 'not allowed' : res.patch ? 'patched' : 'allowed';
  if (got !== pair.expect) throw new Error(`${c.label} ${c.path}: expected ${pair.expect}, got ${got}`);
}

function wrk(o: HttpOptions, c: Contender, pair: Pair, seconds: number, rate?: number): Promise<WrkRun> {
  return runWrk({
    url: `https://127.0.0.1:${c.server.port}${c.path}`,
    bodyFile: pair.bodyFile,
    bodyLabel: `$TMP/${pair.id}.json`,
    connections: o.connections,
    seconds,
    ...(rate ? { rate } : {}),
    ...(o.loadCpu === undefined ? {} : { cpu: o.loadCpu }),
  });
}

interface Measured {
  run: WrkRun;
  /** Server CPU microseconds per answered request during the run. */
  cpuUs: number;
}

async function measured(o: HttpOptions, c: Contender, pair: Pair, seconds: number): Promise<Measured> {
  const before = c.server.cpuSeconds();
  const run = await wrk(o, c, pair, seconds);
  return { run, cpuUs: ((c.server.cpuSeconds() - before) * 1e6) / Math.max(1, run.result.requests) };
}

function assertNoFailures(run: WrkRun, label: string): void {
  if (run.failed > 0) throw new Error(`${label}: ${run.failed} failed requests (${JSON.stringify(run.result.errors)})`);
}

export async function httpFigure(
  o: HttpOptions,
  tls: Tls,
  floorFile: string,
  dir: string,
  log: (line: string) => void,
): Promise<HttpFigure> {
  const start = (spec: Omit<ServerSpec, 'cpu'>): Promise<RunningProcess> =>
    startProcess({ ...spec, ...(o.serverCpu === undefined ? {} : { cpu: o.serverCpu }) }, tls, floorFile, dir);
  const floor = await start({ kind: 'floor' });
  const webhook = await start({ kind: 'webhook' });
  const warn = await start({ kind: 'webhook', logLevel: 'warn' });
  const tsx = await start({ kind: 'webhook-tsx' });
  const servers = [floor, webhook, warn, tsx];
  try {
    const bodies: Record<CaseId, string> = {
      validate: JSON.stringify(createWorkerReview(undefined, [WORKER_TEMPLATE_HOOK])),
      mutate: JSON.stringify(createMasterReview()),
    };
    for (const [id, body] of Object.entries(bodies)) writeFileSync(join(dir, `${id}.json`), body);
    const contenders = (path: string, extra: Contender[] = []): Contender[] => [
      { label: 'floor', server: floor, path },
      { label: 'webhook', server: webhook, path },
      { label: WARN_LABEL, server: warn, path },
      ...extra,
    ];
    const pairs: Pair[] = [
      {
        id: 'validate',
        webhook: 'validate',
        title: '/validate, worker Machine CREATE by the MachineSet controller, its template carrying a hook (allowed)',
        body: bodies.validate,
        bodyFile: join(dir, 'validate.json'),
        expect: 'allowed',
        contenders: contenders('/validate', [{ label: 'webhook via tsx', server: tsx, path: '/validate' }]),
      },
      {
        id: 'mutate',
        webhook: 'mutate',
        title: '/mutate, control-plane Machine CREATE (the etcd hook added, logged at info)',
        body: bodies.mutate,
        bodyFile: join(dir, 'mutate.json'),
        expect: 'patched',
        contenders: contenders('/mutate'),
      },
    ];
    for (const pair of pairs) for (const c of pair.contenders) await checkDecision(pair, c, tls);

    log('http: warm-up');
    for (const pair of pairs) for (const c of pair.contenders) assertNoFailures(await wrk(o, c, pair, 3), c.label);

    const results: PairResult[] = pairs.map((p) => ({
      id: p.id,
      webhook: p.webhook,
      title: p.title,
      bodyBytes: Buffer.byteLength(p.body),
      contenders: [],
      fixedRate: [],
    }));
    const runs = new Map<string, Measured[]>();
    for (let r = 0; r < o.rounds; r++) {
      for (const pair of pairs) {
        // Alternate the order each round so drift on a shared machine favours no one.
        const order = r % 2 === 0 ? pair.contenders : [...pair.contenders].reverse();
        for (const c of order) {
          const m = await measured(o, c, pair, o.seconds);
          assertNoFailures(m.run, c.label);
          log(
            `http: round ${r + 1} ${pair.id} ${c.label}: ${Math.round(m.run.requestsPerSecond)} req/s, ${Math.round(m.cpuUs)} µs CPU per request`,
          );
          runs.set(`${pair.id}/${c.label}`, [...(runs.get(`${pair.id}/${c.label}`) ?? []), m]);
        }
      }
    }
    pairs.forEach((pair, i) => {
      const floorRuns = runs.get(`${pair.id}/floor`) ?? [];
      (results[i] as PairResult).contenders = pair.contenders.map((c) => {
        const mine = runs.get(`${pair.id}/${c.label}`) ?? [];
        return {
          label: c.label,
          command: (mine[0] as Measured).run.command,
          serverCommand: c.server.command,
          rounds: mine.map(({ run, cpuUs }) => ({
            rps: Math.round(run.requestsPerSecond),
            p50Us: run.result.latencyUs.p50,
            p99Us: run.result.latencyUs.p99,
            failed: run.failed,
            cpuUs: round(cpuUs, 0),
          })),
          maxRps: Math.round(median(mine.map((m) => m.run.requestsPerSecond))),
          ratio: round(
            median(mine.map((m, k) => m.run.requestsPerSecond / (floorRuns[k] as Measured).run.requestsPerSecond)),
            2,
          ),
          cpuUsPerRequest: round(median(mine.map((m) => m.cpuUs)), 0),
          cpuRatio: round(median(mine.map((m, k) => (floorRuns[k] as Measured).cpuUs / m.cpuUs)), 2),
        };
      });
    });

    // Latency where it matters: a steady load the webhook can carry (half its maximum), floor at the same rate,
    // in alternating rounds.
    for (const [i, pair] of pairs.entries()) {
      const result = results[i] as PairResult;
      const rate = Math.round((result.contenders.find((c) => c.label === 'webhook') as ContenderResult).maxRps / 2);
      const contenders = pair.contenders.filter((x) => x.label === 'floor' || x.label === 'webhook');
      const fixed = new Map<string, WrkRun[]>(contenders.map((c) => [c.label, []]));
      for (let r = 0; r < o.fixedRounds; r++) {
        for (const c of r % 2 === 0 ? contenders : [...contenders].reverse()) {
          const run = await wrk(o, c, pair, o.fixedSeconds, rate);
          assertNoFailures(run, `${c.label} at ${rate}/s`);
          log(`http: fixed ${rate}/s round ${r + 1} ${pair.id} ${c.label}: p99 ${run.result.latencyUs.p99} µs`);
          fixed.get(c.label)?.push(run);
        }
      }
      for (const c of contenders) {
        const mine = fixed.get(c.label) ?? [];
        result.fixedRate.push({
          label: c.label,
          offeredRps: rate,
          achievedRps: Math.round(median(mine.map((m) => m.requestsPerSecond))),
          p50Us: median(mine.map((m) => m.result.latencyUs.p50)),
          p99Us: median(mine.map((m) => m.result.latencyUs.p99)),
          maxUs: Math.max(...mine.map((m) => m.result.latencyUs.max)),
          failed: mine.reduce((n, m) => n + m.failed, 0),
          rounds: mine.map((m) => ({
            achievedRps: Math.round(m.requestsPerSecond),
            p50Us: m.result.latencyUs.p50,
            p99Us: m.result.latencyUs.p99,
            maxUs: m.result.latencyUs.max,
          })),
          command: (mine[0] as WrkRun).command,
        });
      }
    }

    // The warn run differs from the default one only in logging: the difference in CPU per request is what the
    // default level's lines cost. Its lines, by request (each body has its own uid), from the one log it wrote.
    const lines = readFileSync(webhook.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"msg":"admission decision"'));
    const metrics = await getText(webhook.port, '/metrics', tls.caPem);
    const defaultLog = results.map((result, i) => {
      const pair = pairs[i] as Pair;
      const cpuOf = (label: string): number =>
        (result.contenders.find((c) => c.label === label) as ContenderResult).cpuUsPerRequest;
      const uid = (JSON.parse(pair.body) as { request: { uid: string } }).request.uid;
      const mine = lines.filter((l) => l.includes(`"uid":"${uid}"`));
      return {
        id: pair.id,
        webhook: pair.webhook,
        usPerRequest: round(cpuOf('webhook') - cpuOf(WARN_LABEL), 0),
        // Over every request it answered (its own count: checks, warm-up, measured and fixed-rate runs).
        linesPerRequest: round(mine.length / Math.max(1, answeredBy(metrics, pair.webhook, pair.expect)), 2),
        bytesPerLine: Math.round(mine.reduce((n, l) => n + l.length + 1, 0) / Math.max(1, mine.length)),
      };
    });
    return {
      pairs: results,
      defaultLog,
      afterLoadMemory: webhook.memory(),
      serverCommands: servers.map((s) => s.command),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}
