// `hookkeeper policy check FILE`: a policy file checked on its own (CI, an editor, before a ConfigMap is applied),
// with the loader `serve` uses, so what passes here is what `serve` loads.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError, describeError, type Problem } from '../../errors.js';
import { ExitCode, exitCodeFor, write } from '../io.js';
import type { CliIO } from '../io.js';

interface CheckFlags {
  output: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  const group = program.command('policy').description('work with policy files');
  group
    .command('check')
    .description('check a policy file as serve would load it: exit 0 when valid, 2 with every problem listed when not')
    .argument('<file>', 'the policy file')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (file: string, flags: CheckFlags) => {
      done(await check(file, flags, io));
    });
}

async function check(file: string, flags: CheckFlags, io: CliIO): Promise<number> {
  if (flags.output !== 'text' && flags.output !== 'json') {
    write(io.stderr, `hookkeeper policy check: --output must be text or json, got "${flags.output}"`);
    return ExitCode.Usage;
  }
  let problems: readonly Problem[] = [];
  try {
    const { loadPolicyFile } = await import('../../config/load.js');
    // Read relative to the working directory, reported as the user named it.
    await loadPolicyFile(file, (f) => readFile(resolve(io.cwd, f)));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'CONFIG_INVALID') {
      write(io.stderr, `hookkeeper policy check: ${describeError(err)}`);
      return exitCodeFor(err);
    }
    problems = err.problems.length > 0 ? err.problems : [{ file, message: err.message }];
  }
  if (flags.output === 'json') {
    write(io.stdout, JSON.stringify({ file, valid: problems.length === 0, problems }, null, 2));
  } else if (problems.length === 0) {
    write(io.stdout, `${file}: valid`);
  } else {
    for (const p of problems) write(io.stdout, problemLine(p, file));
    write(io.stdout, `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  }
  return problems.length === 0 ? ExitCode.Ok : ExitCode.Usage;
}

/** "file:line path: message", as compilers and linters print, so editors and CI annotate the line. */
function problemLine(p: Problem, file: string): string {
  const where = `${p.file ?? file}${p.line === undefined ? '' : `:${p.line}`}`;
  return `${where}${p.path === undefined ? '' : ` ${p.path}`}: ${p.message}`;
}
