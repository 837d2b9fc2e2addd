// Child processes of the control-plane harness (etcd, kube-apiserver, hookkeeper): each leads its own process group,
// logs to a file, and is killed with its whole group on stop, at process exit, or by the reaper if this process dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import type { Writable } from 'node:stream';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcess {
  name: string;
  pid: number;
  logFile: string;
  /** Resolves once the process has exited (never rejects). */
  exited: Promise<ExitInfo>;
  /** How it ended, or null while it runs. */
  exit(): ExitInfo | null;
  /** SIGTERM to the group, SIGKILL after graceMs; resolves when the leader has exited. */
  stop(graceMs?: number): Promise<ExitInfo>;
}

export interface SpawnOptions {
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const live = new Set<ManagedProcess>();
let reaperStdin: Writable | undefined;

function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // the group is gone already
  }
}

function tellReaper(line: string): void {
  if (reaperStdin?.writable) reaperStdin.write(`${line}\n`);
}

function startReaper(): void {
  if (reaperStdin) return;
  const script = fileURLToPath(new URL('./reaper.ts', import.meta.url));
  // tsx by absolute URL: the reaper must start whatever its working directory.
  const reaper: ChildProcess = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), script], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  if (!reaper.stdin) throw new Error('the reaper has no stdin');
  reaperStdin = reaper.stdin;
  // Neither the reaper nor its pipe may keep this process alive; the pipe closing is the reaper's cue.
  reaper.unref();
  (reaper.stdin as unknown as { unref(): void }).unref();
  reaper.stdin.on('error', () => undefined);
  // A normal exit (including process.exit from the test runner's signal handling) runs this synchronously.
  process.once('exit', () => {
    for (const p of live) killGroup(p.pid, 'SIGKILL');
  });
}

/** Has the reaper remove dir if this process dies before teardown (etcd alone leaves ~120 MB behind). */
export function removeIfAborted(dir: string): void {
  startReaper();
  tellReaper(`d${dir}`);
}

/** Teardown has taken care of dir (removed it, or kept it on purpose). */
export function forgetDir(dir: string): void {
  tellReaper(`u${dir}`);
}

export function spawnManaged(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions,
): ManagedProcess {
  startReaper();
  const fd = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    // detached: setsid(), so the child leads a group that one kill(-pid) ends, grandchildren included.
    child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start ${name} (${command}): not found or not executable`);
  let info: ExitInfo | null = null;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      info = { code, signal };
      live.delete(managed);
      // Anything the leader left behind in its group goes too.
      killGroup(pid, 'SIGKILL');
      tellReaper(`-${pid}`);
      resolve(info);
    });
  });
  const managed: ManagedProcess = {
    name,
    pid,
    logFile: options.logFile,
    exited,
    exit: () => info,
    async stop(graceMs = 10_000) {
      if (info) return info;
      killGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  live.add(managed);
  tellReaper(`+${pid}`);
  return managed;
}

/** The last lines of a log file, for failure reports. */
export function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return '(no log)';
  const all = readFileSync(file, 'utf8').trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

/** Thrown from a poll condition to stop polling at once (e.g. the process being waited for has died). */
export class GiveUp extends Error {}

/** Ends when `condition` returns a value other than undefined; fails with the last error after timeoutMs. */
export async function pollUntil<T>(
  what: string,
  timeoutMs: number,
  condition: () => Promise<T | undefined>,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== undefined) return value;
      last = undefined;
    } catch (err) {
      if (err instanceof GiveUp) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `: ${last.message}` : last === undefined ? '' : `: ${inspect(last)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
