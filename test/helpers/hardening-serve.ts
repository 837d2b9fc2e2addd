// `hookkeeper serve` as a real child process (through tsx, so no build is needed), for tests that signal it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/transports/cli/main.ts', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  /** Log lines (JSON) written so far. */
  lines: Array<Record<string, unknown>>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `serve` on a free port (--port 0) and resolves once it logs that it is serving. */
export async function spawnServe(args: readonly string[]): Promise<ServeProcess> {
  const env = { ...process.env };
  delete env['HOOKKEEPER_LOG_LEVEL'];
  delete env['HOOKKEEPER_CONFIG'];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--log-level', 'info', ...args],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        lines.push(entry);
        if (entry['msg'] === 'hookkeeper is serving') resolve(entry['port'] as number);
      } catch {
        lines.push({ raw: line });
      }
    });
    void exit.then(({ code, signal }) =>
      reject(new Error(`serve exited (${code ?? signal}) before serving: ${stderr}`)),
    );
  });
  return { child, port, lines, exit };
}
