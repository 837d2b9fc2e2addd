// `hookkeeper policy check FILE`: a policy file checked on its own (CI, an editor, before a ConfigMap is applied),
// with the loader `serve` uses, so what passes here is what `serve` loads.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError, describeError, type Problem } from '../../../errors.js';
import { ExitCode, exitCodeFor, write, writeText } from '../io.js';
import type { CliIO } from '../io.js';
import { collect, flagError, notOneOf } from '../flags.js';

interface CheckFlags {
  filename: string[];
  output: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  const group = program.command('policy').description('work with policy files');
  group
    .command('check')
    .description(
      'check policy files as serve would load them: exit 0 when all are valid, 2 with every problem listed when not',
    )
    .argument('[file...]', 'policy files; - for stdin')
    .option('-f, --filename <file>', 'a policy file after the positional ones, - for stdin (repeatable)', collect, [])
    .option('-o, --output <format>', 'text, or json (one object for one file, an array of them for several)', 'text')
    .action(async (files: string[], flags: CheckFlags) => {
      done(await checkAll([...files, ...flags.filename], flags, io));
    });
}

interface Checked {
  file: string;
  valid: boolean;
  problems: readonly Problem[];
}

async function checkAll(files: readonly string[], flags: CheckFlags, io: CliIO): Promise<number> {
  if (flags.output !== 'text' && flags.output !== 'json') {
    writeText(
      io.stderr,
      `hookkeeper policy check: ${notOneOf('-o/--output', flags.output, 'an output format', ['text', 'json']).message}`,
    );
    return ExitCode.Usage;
  }
  if (files.length === 0) {
    writeText(io.stderr, 'hookkeeper policy check: give a policy file (a path, -f FILE, or - for stdin)');
    return ExitCode.Usage;
  }
  if (files.filter((f) => f === '-').length > 1) {
    writeText(
      io.stderr,
      `hookkeeper policy check: ${flagError('-f/--filename', 'stdin (-) given twice', 'give - once').message}`,
    );
    return ExitCode.Usage;
  }
  const results: Checked[] = [];
  for (const file of files) {
    const checked = await check(file, io);
    if (typeof checked === 'number') return checked;
    results.push(checked);
  }
  if (flags.output === 'json') {
    write(io.stdout, JSON.stringify(results.length === 1 ? results[0] : results, null, 2));
  } else {
    for (const { file, problems } of results) {
      if (problems.length === 0) {
        writeText(io.stdout, `${file}: valid`);
        continue;
      }
      for (const p of problems) writeText(io.stdout, problemLine(p, file));
      writeText(io.stdout, `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
    }
  }
  return results.every((r) => r.valid) ? ExitCode.Ok : ExitCode.Usage;
}

/** One file's problems, or the exit code of a fault that is not a problem of the policy (reported here). */
async function check(file: string, io: CliIO): Promise<Checked | number> {
  const name = file === '-' ? 'stdin' : file;
  let problems: readonly Problem[] = [];
  try {
    const { loadPolicyFile } = await import('../../../infrastructure/config/load.js');
    // Read relative to the working directory, reported as the user named it.
    await loadPolicyFile(name, (f) => (file === '-' ? readStream(io.stdin) : readFile(resolve(io.cwd, f))));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'CONFIG_INVALID') {
      writeText(io.stderr, `hookkeeper policy check: ${describeError(err)}`);
      return exitCodeFor(err);
    }
    problems = err.problems.length > 0 ? err.problems : [{ file: name, message: err.message }];
  }
  return { file: name, valid: problems.length === 0, problems };
}

async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** "file:line path: message", as compilers and linters print, so editors and CI annotate the line. */
function problemLine(p: Problem, file: string): string {
  const where = `${p.file ?? file}${p.line === undefined ? '' : `:${p.line}`}`;
  return `${where}${p.path === undefined ? '' : ` ${p.path}`}: ${p.message}`;
}
