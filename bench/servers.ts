// The servers under test as separate processes, as they run in a cluster: the built webhook, the webhook through
// tsx, and the floor (bench/floor-server.ts, transpiled to plain JS so it starts without a loader either).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import ts from 'typescript';
import { createCertificateAuthority, issueServingCertificate } from '../src/infrastructure/certs/pki.js';

export const REPO = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

export interface Tls {
  certFile: string;
  keyFile: string;
  caPem: string;
}

export async function prepareTls(dir: string): Promise<Tls> {
  const ca = await createCertificateAuthority({ commonName: 'hookkeeper-bench-ca', days: 1 });
  const leaf = await issueServingCertificate(ca, {
    commonName: '127.0.0.1',
    dnsNames: ['localhost'],
    ips: ['127.0.0.1'],
    days: 1,
  });
  const tls = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), caPem: ca.certPem };
  writeFileSync(tls.certFile, leaf.certPem);
  writeFileSync(tls.keyFile, leaf.keyPem, { mode: 0o600 });
  return tls;
}

/** bench/floor-server.ts as an .mjs file, so the floor pays no TypeScript loader at start-up. */
export function transpileFloor(dir: string): string {
  const source = readFileSync(join(REPO, 'bench', 'floor-server.ts'), 'utf8');
  const out = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const file = join(dir, 'floor-server.mjs');
  writeFileSync(file, out.outputText);
  return file;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The node every server runs on, floor and webhook alike: this process's, or HOOKKEEPER_BENCH_NODE (e.g. the line
 * the image ships, Containerfile), so a ratio can be read on the Node users run.
 */
export const SERVER_NODE = process.env['HOOKKEEPER_BENCH_NODE'] ?? process.execPath;

export type ServerKind = 'floor' | 'webhook' | 'webhook-tsx';

export interface ServerSpec {
  kind: ServerKind;
  /** --log-level; none: no flag, the level a user gets by default. */
  logLevel?: 'warn' | 'info';
  /** Pin to this CPU with taskset (all of the process's threads). */
  cpu?: number;
  /** Node flags before the script, e.g. --cpu-prof. */
  nodeFlags?: readonly string[];
}

export interface RunningProcess {
  spec: ServerSpec;
  pid: number;
  port: number;
  /** The command line, with the temporary directory written as $TMP. */
  command: string;
  /** Milliseconds from spawn to the first 200 from GET /readyz. */
  startupMs: number;
  logFile: string;
  /** VmRSS and VmHWM (peak) in MiB, from /proc. */
  memory(): { rssMiB: number; peakMiB: number };
  /** CPU time (user + system, all threads) the process has used so far, in seconds. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

function argv(spec: ServerSpec, port: number, tls: Tls, floorFile: string, dir: string): string[] {
  const serve = [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--tls-cert',
    tls.certFile,
    '--tls-key',
    tls.keyFile,
    ...(spec.logLevel === undefined ? [] : ['--log-level', spec.logLevel]),
    '--dev-cert-dir',
    join(dir, 'dev-certs'),
  ];
  const node = [SERVER_NODE, ...(spec.nodeFlags ?? [])];
  switch (spec.kind) {
    case 'floor':
      return [...node, floorFile, tls.certFile, tls.keyFile, String(port)];
    case 'webhook':
      return [...node, join(REPO, 'dist', 'transports', 'cli', 'main.js'), ...serve];
    case 'webhook-tsx':
      return [...node, '--import', 'tsx', join(REPO, 'src', 'transports', 'cli', 'main.ts'), ...serve];
  }
}

function getStatus(port: number, caPem: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', ca: caPem, agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime from /proc/PID/stat (fields 14 and 15, counted after the parenthesised command name). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: Math.round(kib('VmRSS') / 102.4) / 10, peakMiB: Math.round(kib('VmHWM') / 102.4) / 10 };
}

export async function startProcess(
  spec: ServerSpec,
  tls: Tls,
  floorFile: string,
  dir: string,
): Promise<RunningProcess> {
  const port = await freePort();
  const args = argv(spec, port, tls, floorFile, dir);
  const full = spec.cpu === undefined ? args : ['taskset', '-c', String(spec.cpu), ...args];
  const logFile = join(dir, `${spec.kind}-${spec.logLevel ?? 'default'}-${port}.log`);
  const fd = openSync(logFile, 'w');
  // The child's level comes from its flags alone.
  const env = { ...process.env };
  delete env['HOOKKEEPER_LOG_LEVEL'];
  delete env['HOOKKEEPER_CONFIG'];
  const started = performance.now();
  const child: ChildProcess = spawn(full[0] as string, full.slice(1), { cwd: REPO, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let startupMs = Number.NaN;
  for (const deadline = started + 30_000; performance.now() < deadline;) {
    if (child.exitCode !== null)
      throw new Error(`${spec.kind} exited with ${child.exitCode} before ready; see ${logFile}`);
    if ((await getStatus(port, tls.caPem)) === 200) {
      startupMs = performance.now() - started;
      break;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  if (Number.isNaN(startupMs)) {
    child.kill('SIGKILL');
    throw new Error(`${spec.kind} not ready within 30 s; see ${logFile}`);
  }
  return {
    spec,
    pid: child.pid as number,
    port,
    logFile,
    startupMs,
    command: full
      .map((a) => a.replace(dir, '$TMP').replace(`${REPO}/`, '').replace(process.execPath, 'node'))
      .join(' '),
    memory: () => memoryOf(child.pid as number),
    cpuSeconds: () => cpuSecondsOf(child.pid as number),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
