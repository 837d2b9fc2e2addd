// Runs the CLI in process with injected streams, as a user would from a shell (or a terminal, with tty).
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/program.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string; tty?: boolean } = {},
): Promise<CliRun> {
  const tty = options.tty === true;
  const stdin = new PassThrough();
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  stdin.end(options.stdin ?? '');
  const code = await runCli(args, {
    stdin,
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    isTTY: tty,
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}
