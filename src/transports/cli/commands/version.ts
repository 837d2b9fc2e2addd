// `hookkeeper version`, as kubectl has it, beside `--version`: the version of this build, in text or JSON.
import type { Command } from 'commander';
import { notOneOf } from '../flags.js';
import { ExitCode, write, writeText, type CliIO } from '../io.js';

export function registerVersion(version: string) {
  return (program: Command, io: CliIO, done: (code: number) => void): void => {
    program
      .command('version')
      .description('print the version of hookkeeper')
      .option('-o, --output <format>', 'text or json', 'text')
      .action((flags: { output: string }) => {
        if (flags.output !== 'text' && flags.output !== 'json') {
          writeText(
            io.stderr,
            `hookkeeper version: ${notOneOf('-o/--output', flags.output, 'an output format', ['text', 'json']).message}`,
          );
          done(ExitCode.Usage);
          return;
        }
        write(io.stdout, flags.output === 'json' ? JSON.stringify({ version }) : `hookkeeper ${version}`);
        done(ExitCode.Ok);
      });
  };
}
