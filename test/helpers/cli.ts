// Runs the CLI in process with injected streams, as a user would from a shell (or a terminal, with tty).
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram, runCli } from '../../src/transports/cli/program.js';

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

/** Every command of the CLI's tree with its full name ("policy check"), for tests that read what each declares. */
export function commandTree(): Array<{ name: string; cmd: Command }> {
  const io = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    cwd: '/',
    isTTY: false,
  };
  const walk = (cmd: Command, prefix = ''): Array<{ name: string; cmd: Command }> =>
    cmd.commands.flatMap((c) => {
      const name = `${prefix}${c.name()}`;
      return [{ name, cmd: c }, ...walk(c, `${name} `)];
    });
  return walk(buildProgram(io, () => undefined));
}
