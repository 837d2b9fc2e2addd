// What the figures were measured on: ratios only mean something next to the machine and its load at the time.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { SERVER_NODE } from './servers.js';

export interface MachineDescription {
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  /** The Node the servers ran on (bench/servers.ts SERVER_NODE), when it is not the bench's own. */
  serverNode?: string;
  kernel: string;
  wrk: string;
  /** 1-minute load average when the run began: other work on a shared machine moves absolutes. */
  loadAtStart: number;
}

function commandOutput(file: string, args: string[]): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    // `wrk --version` prints its banner and exits 1.
    const out = (err as { stdout?: string }).stdout;
    return typeof out === 'string' && out.trim() !== '' ? out.trim() : 'not installed';
  }
}

function cpuModel(): string {
  const fromProc = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
  return (fromProc ?? cpus()[0]?.model ?? 'unknown').trim();
}

export function describeMachine(): MachineDescription {
  const serverNode = commandOutput(SERVER_NODE, ['--version']);
  return {
    ...(serverNode === process.version ? {} : { serverNode }),
    nproc: Number(commandOutput('nproc', [])) || cpus().length,
    cpuModel: cpuModel(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: release(),
    wrk:
      commandOutput('wrk', ['--version'])
        .split('\n')[0]
        ?.replace(/ Copyright.*/, '') ?? 'not installed',
    loadAtStart: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function currentLoad(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}
