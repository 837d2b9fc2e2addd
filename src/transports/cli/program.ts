// The command tree. Each command registers itself and reports its exit code through `done`. Registration is cheap:
// a command imports what it works with (yaml, ajv, pino, prom-client, client-node) inside its action, so a run loads
// only its own command's modules (`hookkeeper audit` no YAML writer, `validate` no logger).
import { Command, CommanderError } from 'commander';
import { register as admissionPolicy } from './commands/admission-policy.js';
import { register as audit } from './commands/audit.js';
import { register as certs } from './commands/certs.js';
import { register as explain } from './commands/explain.js';
import { register as policy } from './commands/policy.js';
import { register as review } from './commands/review.js';
import { register as serve } from './commands/serve.js';
import { register as policyTest } from './commands/test.js';
import { register as validate } from './commands/validate.js';
import { registerVersion } from './commands/version.js';
import { register as webhookConfig } from './commands/webhook-config.js';
import { describeError } from '../../errors.js';
import { readVersion } from '../../infrastructure/version.js';
import { commanderErrorText } from './commander-errors.js';
import { ExitCode, exitCodeFor, writeText, type CliIO } from './io.js';

type Register = (program: Command, io: CliIO, done: (code: number) => void) => void;

const COMMANDS: readonly Register[] = [
  serve,
  review,
  validate,
  audit,
  explain,
  policy,
  policyTest,
  certs,
  webhookConfig,
  admissionPolicy,
];

/** The command tree, each command reporting its exit code through `done`. */
export function buildProgram(io: CliIO, done: (code: number) => void, version = readVersion()): Command {
  const program = new Command('hookkeeper')
    .description('guards Machine lifecycle hooks: admission webhook, CI validation and cluster audit')
    .version(version)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  for (const register of [...COMMANDS, registerVersion(version)]) register(program, io, done);
  // Every command, nested ones too: commander's own words are not printed; its errors are, in hookkeeper's form.
  const all = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(all)];
  for (const cmd of all(program))
    cmd
      .configureOutput({
        writeOut: (s) => io.stdout.write(s),
        writeErr: (s) => io.stderr.write(s),
        outputError: () => {},
      })
      .exitOverride((err) => {
        const text = commanderErrorText(cmd, err);
        if (text !== undefined) writeText(io.stderr, text);
        throw err;
      });
  return program;
}

export async function runCli(args: readonly string[], io: CliIO): Promise<number> {
  let code: number | undefined;
  let version: string;
  try {
    version = readVersion();
  } catch (err) {
    writeText(io.stderr, `hookkeeper: ${describeError(err)}`);
    return exitCodeFor(err);
  }
  const program = buildProgram(
    io,
    (c) => {
      code = c;
    },
    version,
  );
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with exit code 0; every other parse failure is a usage error.
      return err.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    writeText(io.stderr, `hookkeeper: ${describeError(err)}`);
    return exitCodeFor(err);
  }
  if (code === undefined) {
    writeText(io.stderr, program.helpInformation());
    return ExitCode.Usage;
  }
  return code;
}
