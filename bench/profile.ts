// The profile behind figure 2's gap: the floor and the webhook each run under `node --cpu-prof` with the same
// wrk load, and only the samples taken while wrk measured are kept (the V8 profile clock and process.hrtime
// are both CLOCK_MONOTONIC), so start-up and warm-up do not count. Self time is grouped into components and
// divided by the requests answered: microseconds of CPU per request, side by side.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMasterReview, createWorkerReview, WORKER_TEMPLATE_HOOK } from '../test/fixtures/hardening-machine.js';
import { round } from './measure.js';
import { startProcess, type ServerKind, type Tls } from './servers.js';
import { runWrk } from './wrk.js';

export interface ProfileOptions {
  seconds: number;
  serverCpu?: number;
  loadCpu?: number;
}

export interface ProfileRow {
  component: string;
  floorUs: number;
  webhookUs: number;
}

export interface ProfileFigure {
  webhook: 'validate' | 'mutate';
  requests: { floor: number; webhook: number };
  rows: ProfileRow[];
  /** The functions of hookkeeper and its libraries with the most self time, µs per request. */
  top: Array<{ fn: string; us: number }>;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Components in the order they are tried; the first match names a frame's self time. */
const COMPONENTS: ReadonlyArray<[string, RegExp]> = [
  ['idle', /^\((idle)\)/],
  ['garbage collection', /^\(garbage collector\)/],
  ['hookkeeper: policy engine (core)', /\/dist\/core\//],
  ['hookkeeper: AdmissionReview in and out (admission)', /\/dist\/admission\//],
  ['hookkeeper: request handler, body, metrics calls (server)', /\/dist\/server\//],
  ['floor: request handler', /floor-server\.mjs/],
  ['prom-client (metrics)', /prom-client/],
  ['ajv (envelope check)', /\/ajv\//],
  ['pino (logging)', /pino/],
  [
    'TLS and socket writes',
    /^(writev|writeBuffer|writeUtf8String|writeLatin1String) |stream_base_commons|node:net|node:tls|_tls_|internal\/streams/,
  ],
  ['HTTP parsing and responses (node:http)', /_http_|node:http/],
  ['other Node internals and V8', /./],
];

function componentOf(fn: string, url: string): string {
  const key = `${fn} ${url}`;
  for (const [name, re] of COMPONENTS) if (re.test(key)) return name;
  return 'other Node internals and V8';
}

/** Self time (µs) per component and per function, counting only samples inside [fromUs, toUs]. */
function selfTimes(
  file: string,
  fromUs: number,
  toUs: number,
): { components: Map<string, number>; functions: Map<string, number> } {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const frames = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const components = new Map<string, number>();
  const functions = new Map<string, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const delta = p.timeDeltas[i] ?? 0;
    t += delta;
    if (t < fromUs || t > toUs) continue;
    const f = frames.get(p.samples[i] as number);
    if (!f) continue;
    const c = componentOf(f.functionName, f.url);
    components.set(c, (components.get(c) ?? 0) + delta);
    if (/\/dist\/|node_modules/.test(f.url)) {
      const fn = `${f.functionName || '(anonymous)'} (${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1})`;
      functions.set(fn, (functions.get(fn) ?? 0) + delta);
    }
  }
  return { components, functions };
}

async function profileOne(
  kind: ServerKind,
  path: string,
  bodyFile: string,
  o: ProfileOptions,
  tls: Tls,
  floorFile: string,
  dir: string,
) {
  const profDir = join(dir, `prof-${kind}-${path.slice(1)}`);
  const server = await startProcess(
    {
      kind,
      nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profDir}`],
      ...(o.serverCpu === undefined ? {} : { cpu: o.serverCpu }),
    },
    tls,
    floorFile,
    dir,
  );
  const wrk = (seconds: number) =>
    runWrk({
      url: `https://127.0.0.1:${server.port}${path}`,
      bodyFile,
      connections: 32,
      seconds,
      ...(o.loadCpu === undefined ? {} : { cpu: o.loadCpu }),
    });
  let window: [number, number];
  let requests: number;
  try {
    await wrk(2); // warm-up: the JIT settles
    const from = Number(process.hrtime.bigint() / 1000n);
    const run = await wrk(o.seconds);
    window = [from, Number(process.hrtime.bigint() / 1000n)];
    if (run.failed > 0) throw new Error(`profile ${kind} ${path}: ${run.failed} failed requests`);
    requests = run.result.requests;
  } finally {
    await server.stop(); // the profile is written as the process exits
  }
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no CPU profile written in ${profDir}`);
  return { requests, ...selfTimes(join(profDir, file), window[0], window[1]) };
}

/** Figure 2's bodies: each webhook's commonest request once the conditions apply (a worker CREATE carrying its template's hook; a control-plane CREATE). */
export async function profileFigure(
  o: ProfileOptions,
  tls: Tls,
  floorFile: string,
  dir: string,
): Promise<ProfileFigure[]> {
  const bodies = { validate: join(dir, 'profile-validate.json'), mutate: join(dir, 'profile-mutate.json') };
  writeFileSync(bodies.validate, JSON.stringify(createWorkerReview(undefined, [WORKER_TEMPLATE_HOOK])));
  writeFileSync(bodies.mutate, JSON.stringify(createMasterReview()));
  const out: ProfileFigure[] = [];
  for (const webhook of ['validate', 'mutate'] as const) {
    const floor = await profileOne('floor', `/${webhook}`, bodies[webhook], o, tls, floorFile, dir);
    const mine = await profileOne('webhook', `/${webhook}`, bodies[webhook], o, tls, floorFile, dir);
    const per = (us: number | undefined, n: number): number => round((us ?? 0) / n, 1);
    const rows = COMPONENTS.map(([name]) => ({
      component: name,
      floorUs: per(floor.components.get(name), floor.requests),
      webhookUs: per(mine.components.get(name), mine.requests),
    })).filter((r) => r.component !== 'idle' && (r.floorUs > 0 || r.webhookUs > 0));
    const top = [...mine.functions]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([fn, us]) => ({ fn, us: per(us, mine.requests) }));
    out.push({ webhook, requests: { floor: floor.requests, webhook: mine.requests }, rows, top });
  }
  return out;
}
