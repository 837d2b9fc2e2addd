// Drives wrk (C, one event-loop thread) with bench/wrk/admission.lua and reads the JSON line the script prints.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './servers.js';

export interface WrkResult {
  requests: number;
  durationUs: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
}

export interface WrkRun {
  result: WrkResult;
  requestsPerSecond: number;
  failed: number;
  command: string;
}

export interface WrkOptions {
  url: string;
  bodyFile: string;
  connections: number;
  seconds: number;
  /** Fixed offered rate (requests per second); none: as fast as the server answers. */
  rate?: number;
  cpu?: number;
  /** How to print the body file in the recorded command. */
  bodyLabel?: string;
}

export function wrkCommand(o: WrkOptions): string[] {
  const args = [
    'wrk',
    '-t1',
    `-c${o.connections}`,
    `-d${o.seconds}s`,
    '--timeout',
    '5s',
    '-s',
    join(REPO, 'bench', 'wrk', 'admission.lua'),
    o.url,
    '--',
    o.bodyFile,
    ...(o.rate ? [String(Math.round(o.rate))] : []),
  ];
  return o.cpu === undefined ? args : ['taskset', '-c', String(o.cpu), ...args];
}

export function runWrk(o: WrkOptions): Promise<WrkRun> {
  const cmd = wrkCommand(o);
  return new Promise((resolve, reject) => {
    execFile(
      cmd[0] as string,
      cmd.slice(1),
      { encoding: 'utf8', timeout: (o.seconds + 30) * 1000 },
      (err, stdout, stderr) => {
        if (err) {
          reject(new Error(`wrk failed: ${err.message}\n${stderr}`));
          return;
        }
        const line = stdout
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .pop();
        if (!line) {
          reject(new Error(`wrk printed no result:\n${stdout}\n${stderr}`));
          return;
        }
        const result = JSON.parse(line) as WrkResult;
        const e = result.errors;
        resolve({
          result,
          requestsPerSecond: result.requests / (result.durationUs / 1e6),
          failed: e.connect + e.read + e.write + e.status + e.timeout,
          command: cmd
            .map((a) => (a === o.bodyFile ? (o.bodyLabel ?? a) : a.replace(`${REPO}/`, '')))
            .join(' ')
            .replace(/127\.0\.0\.1:\d+/, '127.0.0.1:$PORT'),
        });
      },
    );
  });
}
