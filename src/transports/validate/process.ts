// One child process under the bounds of every other `validate` input: a deadline and a cap on what it prints. Used
// for the renders of `-k`/`--render` and the base revision's checkout; a failure says what ran, where, and its stderr.
import { spawn } from 'node:child_process';
import { AppError } from '../../errors.js';

export interface RunOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Killed (its whole process group: a shell's children too) when it runs longer. */
  timeoutMs: number;
  /** Killed when its standard output grows past this. */
  maxBytes: number;
  /** What ran, where, for errors: "`kustomize build overlays/prod` at main". */
  what: string;
}

/** The stderr kept for an error message: its end, where tools print the reason they stopped. */
export const STDERR_SHOWN_BYTES = 16 * 1024;

function megabytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(0)} MiB` : `${n} bytes`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** stderr as problems, one a line, so an error lists the tool's own words under its message. */
function stderrLines(err: Buffer): { message: string }[] {
  const text = err.subarray(Math.max(0, err.length - STDERR_SHOWN_BYTES)).toString('utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return (lines.length === 0 ? ['(nothing on stderr)'] : lines).map((message) => ({ message }));
}

/**
 * Runs `argv` (no shell: pass ['sh', '-c', CMD] for one) and resolves with its standard output when it exits 0.
 * Anything else (not found, a non-zero exit, a signal, the deadline, too much output) is an input error (exit 2)
 * carrying the end of its stderr: nothing half-printed is ever judged.
 */
export function runBounded(argv: readonly string[], options: RunOptions): Promise<string> {
  const [cmd, ...args] = argv;
  return new Promise((resolveRun, reject) => {
    // Its own process group, so the deadline ends what a shell or a Makefile started, whose pipes would keep it open.
    const child = spawn(cmd ?? '', args, {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const out: Buffer[] = [];
    let err = Buffer.alloc(0);
    let received = 0;
    let settled = false;
    const fail = (message: string, withStderr = true): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new AppError('INPUT_INVALID', message, withStderr ? { problems: stderrLines(err) } : {}));
    };
    const kill = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      kill();
      fail(`${options.what} did not finish within ${seconds(options.timeoutMs)} (--render-timeout)`);
    }, options.timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      if (settled) return;
      received += c.length;
      if (received <= options.maxBytes) return void out.push(c);
      out.length = 0;
      kill();
      fail(`${options.what} printed more than ${megabytes(options.maxBytes)}, more than validate reads from one input`);
    });
    child.stderr.on('data', (c: Buffer) => {
      err = Buffer.concat([err, c]);
      if (err.length > 2 * STDERR_SHOWN_BYTES) err = err.subarray(err.length - STDERR_SHOWN_BYTES);
    });
    child.on('error', (cause) => fail(`cannot run ${options.what}: ${cause.message}`, false));
    child.on('close', (code, signal) => {
      if (settled) return;
      if (code === 0) {
        settled = true;
        clearTimeout(timer);
        return resolveRun(Buffer.concat(out).toString('utf8'));
      }
      fail(`${options.what} failed (${signal === null ? `exit ${String(code)}` : `killed by ${signal}`})`);
    });
  });
}
