// `hookkeeper validate`: offline, CI-side review of manifests with the webhook's engine. Flags -> inputs ->
// validateInputs -> text, JSON or JUnit -> exit code (0 all allowed, 1 something denied, 2 usage or input).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError, describeError } from '../../errors.js';
import { describeFormats, formatNames, isFormat } from '../../format.js';
import { VALIDATE_FORMATS } from '../../validate/formats.js';
import { readBounded, STDIN, STDIN_NAME, type InputFile } from '../../validate/inputs.js';
import { DEFAULT_USER } from '../../validate/report.js';
import { ExitCode, exitCodeFor, write, type CliIO } from '../io.js';
import { collect } from '../flags.js';
import { cliPolicy } from '../policy.js';
import { rulesHelp } from '../rules-help.js';

interface ValidateFlags {
  config?: string;
  old: string[];
  oldRef?: string;
  as: string;
  asGroup: string[];
  crd: string[];
  output: string;
  showPatches?: boolean;
  namespace?: string;
  allowEmpty?: boolean;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('validate')
    .description(
      'review manifests as the webhook would (mutate, then validate), for CI: files, directories (*.yaml, *.yml, *.json), or - for stdin',
    )
    .argument('[paths...]', 'files, directories (searched recursively) or - for stdin')
    .option('--config <file>', 'policy file (default: $HOOKKEEPER_CONFIG, else the embedded default policy)')
    .option(
      '--old <path>',
      'the previous manifests (repeatable): an object whose identity is found there is judged as UPDATE, objects gone from the inputs are listed as deletions',
      collect,
      [],
    )
    .option(
      '--old-ref <git-ref>',
      'like --old, with every manifest at this git revision (e.g. origin/main); deletions from the same paths only',
    )
    .option(
      '-n, --namespace <namespace>',
      'the namespace of objects that have none (as kubectl apply -n); applies to the old manifests too',
    )
    .option('--allow-empty', 'exit 0 when the inputs hold no object (by default an input error: exit 2)')
    .option('--as <user>', 'the username the changes will be applied as', DEFAULT_USER.username)
    .option('--as-group <group>', 'a group of that user (repeatable)', collect, [])
    .option(
      '--crd <file>',
      "also check objects against this CustomResourceDefinition's schema, as the API server will (repeatable)",
      collect,
      [],
    )
    .option('--output <format>', `output format: ${describeFormats(VALIDATE_FORMATS)}`, 'text')
    .option('--show-patches', 'show the mutation the webhook would apply (JSON Patch and the change in words)')
    .addHelpText(
      'after',
      [
        '',
        'Plain manifests are judged as CREATE, or as UPDATE when --old/--old-ref holds the same object (matched by API',
        'group, kind, namespace and name, whatever file or stream holds it), as the user given with --as (default',
        '"hookkeeper-validate", no groups). An identity defined twice on either side is an input error.',
        'AdmissionReview documents are judged as they are. Deleted objects are reported, not failed.',
        '',
        ...rulesHelp('validate', { mutating: true }),
        '',
        'Exit codes: 0 all allowed (warnings do not fail), 1 something denied, 2 usage or input error.',
      ].join('\n'),
    )
    .action(async (paths: string[], flags: ValidateFlags) => {
      done(await validate(paths, flags, io));
    });
}

async function oldInputs(paths: readonly string[], flags: ValidateFlags, io: CliIO): Promise<InputFile[] | undefined> {
  if (flags.oldRef !== undefined && flags.old.length > 0)
    throw new AppError('USAGE', 'choose one of --old and --old-ref');
  if (flags.oldRef !== undefined) return (await import('../../validate/git.js')).readAtRef(flags.oldRef, paths, io.cwd);
  if (flags.old.length === 0) return undefined;
  if (flags.old.includes(STDIN)) throw new AppError('USAGE', '--old cannot read stdin');
  return (await import('../../validate/inputs.js')).readInputs(flags.old, {
    cwd: io.cwd,
    readStdin: () => Promise.resolve(''),
  });
}

async function validate(paths: string[], flags: ValidateFlags, io: CliIO): Promise<number> {
  try {
    const output = flags.output;
    if (!isFormat(VALIDATE_FORMATS, output))
      throw new AppError(
        'USAGE',
        `--output must be one of ${formatNames(VALIDATE_FORMATS).join(', ')}, got "${output}"`,
      );
    if (paths.length === 0)
      throw new AppError('USAGE', 'give the manifests to validate: files, directories, or - for stdin');
    const policy = await cliPolicy(flags.config, io);
    const [{ readInputs }, { validateInputs }] = await Promise.all([
      import('../../validate/inputs.js'),
      import('../../validate/run.js'),
    ]);
    const crds =
      flags.crd.length === 0
        ? undefined
        : (await import('../../validate/crd.js')).CrdSet.parse(
            await Promise.all(
              flags.crd.map(async (f) => ({
                file: f,
                text: await readFile(resolve(io.cwd, f), 'utf8').catch((cause: Error) => {
                  throw new AppError('USAGE', `--crd ${f}: ${cause.message}`, { cause });
                }),
              })),
            ),
          );
    const inputs = await readInputs(paths, { cwd: io.cwd, readStdin: () => readBounded(io.stdin, STDIN_NAME) });
    // A namespace name is a DNS label (RFC 1123), as the API server requires.
    if (
      flags.namespace !== undefined &&
      (flags.namespace.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(flags.namespace))
    )
      throw new AppError(
        'USAGE',
        `-n/--namespace: ${JSON.stringify(flags.namespace)} is not a namespace name (lowercase letters, digits and "-", at most 63)`,
      );
    const report = validateInputs(inputs, await oldInputs(paths, flags, io), {
      policy,
      userInfo: { username: flags.as, groups: flags.asGroup },
      ...(crds ? { crds } : {}),
      ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
      ...(flags.oldRef !== undefined
        ? { oldSource: `at ${flags.oldRef}` }
        : flags.old.length > 0
          ? { oldSource: `in --old ${flags.old.join(', ')}` }
          : {}),
    });
    // A failed `kustomize build | hookkeeper validate -` without pipefail sends nothing: that must not pass.
    if (report.results.length === 0 && flags.allowEmpty !== true)
      throw new AppError(
        'INPUT_INVALID',
        `no objects to validate in ${paths.map((p) => (p === STDIN ? STDIN_NAME : p)).join(', ')}: ` +
          'an empty stream is what a failed `kustomize build` or `helm template` sends to a pipe without pipefail; ' +
          'give --allow-empty if no object is expected',
      );
    const render = await VALIDATE_FORMATS[output].load();
    write(io.stdout, render(report, { showPatches: flags.showPatches === true }));
    const denied = report.results.some((r) => !r.allowed) || report.deletions.some((d) => !d.allowed);
    return denied ? ExitCode.Violations : ExitCode.Ok;
  } catch (err) {
    write(io.stderr, `hookkeeper validate: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}
