// `hookkeeper validate`: offline, CI-side review of manifests with the webhook's engine. Flags -> inputs ->
// validateInputs -> text, JSON, JUnit, SARIF or GitHub annotations -> exit code (docs/cli.md#validate-exit-codes).
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError, describeError } from '../../../errors.js';
import { describeFormats, formatNames, isFormat } from '../../../infrastructure/format.js';
import { VALIDATE_FORMATS, type ValidateFormat } from '../../validate/formats.js';
import { readBounded, STDIN, STDIN_NAME, type InputFile } from '../../../infrastructure/manifests/inputs.js';
import { DEFAULT_USER, failedReport, mergeReports, type ValidateReport } from '../../validate/report.js';
import type { RenderSpec } from '../../validate/render.js';
import { ExitCode, exitCodeFor, write, writeText, type CliIO } from '../io.js';
import { collect, duration, flagError, notOneOf } from '../flags.js';
import { cliPolicy } from '../policy.js';
import { rulesHelp } from '../rules-help.js';

/** --render-timeout's default: a local kustomize build or helm template takes seconds; remote bases, longer. */
const DEFAULT_RENDER_TIMEOUT = '2m';

/** What fails the run (exit 1): a denial only (the webhook's own line), or a warning too. */
const FAIL_ON = ['deny', 'warn'] as const;

interface ValidateFlags {
  config?: string;
  filename: string[];
  exclude: string[];
  failOn: string;
  old: string[];
  oldRef?: string;
  as: string;
  asGroup: string[];
  crd: string[];
  output: string;
  showPatches?: boolean;
  namespace?: string;
  allowEmpty?: boolean;
  kustomize: string[];
  render: string[];
  renderTimeout: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('validate')
    .description(
      'review manifests as the webhook would (mutate, then validate), for CI: files, directories (*.yaml, *.yml, *.json), or - for stdin',
    )
    .argument('[paths...]', 'files, directories (searched recursively) or - for stdin')
    .option(
      '-f, --filename <path>',
      'a file, directory or - for stdin, as a path argument is (repeatable)',
      collect,
      [],
    )
    .option(
      '--exclude <glob>',
      'leave out what matches, in a directory given (repeatable): matched against the path relative to that directory, ' +
        'a pattern without "/" against a name at any depth (as in .gitignore), e.g. "charts/**", "kustomization.yaml"',
      collect,
      [],
    )
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
      '-k, --kustomize <dir>',
      'judge what `kustomize build DIR` renders (kustomize on the PATH, else kubectl kustomize); with --old-ref, ' +
        'against DIR rendered at that revision (repeatable: each overlay is judged against its own old render)',
      collect,
      [],
    )
    .option(
      '--render <command>',
      'judge the standard output of this shell command, run at the repository root (e.g. "helm template charts/app"); ' +
        'with --old-ref, against its output at that revision (repeatable)',
      collect,
      [],
    )
    .option(
      '--render-timeout <duration>',
      'how long each render (and the checkout of --old-ref for it) may take',
      DEFAULT_RENDER_TIMEOUT,
    )
    .option(
      '-n, --namespace <namespace>',
      'the namespace of objects that have none (as kubectl apply -n); applies to the old manifests too',
    )
    .option('--allow-empty', 'exit 0 when the inputs hold no object (by default an input error: exit 2)')
    .option('--as <user>', 'the username the changes will be applied as', DEFAULT_USER.username)
    .option('--as-group <group>', 'a group of that user (repeatable)', collect, [])
    .option(
      '--crd <path>',
      'also check objects against the schema of this CustomResourceDefinition file, or of every CRD file under this directory, as the API server will (repeatable)',
      collect,
      [],
    )
    .option('-o, --output <format>', `output format: ${describeFormats(VALIDATE_FORMATS)}`, 'text')
    .option('--fail-on <severity>', `what fails the run (exit 1): ${FAIL_ON.join(' or ')} (a warning too)`, 'deny')
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
        'A directory holding Chart.yaml (a Helm chart) is not read: give --render "helm template DIR" instead.',
        'With -k or --render and --old-ref, the repository is rendered in the working tree and in a temporary',
        'checkout of the revision (git worktree), so rendered objects meet rendered old ones; a render that fails at',
        'either revision is an input error.',
        '',
        'Exit codes: 0 nothing denied (warnings do not fail unless --fail-on warn), 1 something denied (or warned,',
        'with --fail-on warn), 2 usage or input error: an input that cannot be read is reported beside the results',
        'of the others, and under json, junit, sarif and github the output still says what failed.',
      ].join('\n'),
    )
    .action(async (paths: string[], flags: ValidateFlags) => {
      done(await validate(paths, flags, io));
    });
}

async function oldInputs(paths: readonly string[], flags: ValidateFlags, io: CliIO): Promise<InputFile[] | undefined> {
  if (flags.oldRef !== undefined && flags.old.length > 0)
    throw flagError('--old-ref', 'cannot go with --old', 'give one of them');
  if (flags.oldRef !== undefined)
    return (await import('../../validate/git.js')).readAtRef(flags.oldRef, paths, io.cwd, {}, flags.exclude);
  if (flags.old.length === 0) return undefined;
  if (flags.old.includes(STDIN))
    throw flagError('--old', 'cannot read stdin (-)', 'give the old files or directories, or --old-ref');
  const read = await (
    await import('../../../infrastructure/manifests/inputs.js')
  ).readInputs(flags.old, { cwd: io.cwd, readStdin: () => Promise.resolve(''), exclude: flags.exclude });
  // Every verdict may depend on an old version: one that cannot be read stops the run.
  if (read.problems.length > 0)
    throw new AppError('INPUT_INVALID', 'cannot read the old manifests (--old)', { problems: read.problems });
  return read.files;
}

/** The exit code of a report: input problems first (the verdicts are incomplete), then what --fail-on names. */
function exitCode(report: ValidateReport, failOn: (typeof FAIL_ON)[number]): number {
  if (report.problems.length > 0) return ExitCode.Usage;
  const denied = report.results.some((r) => !r.allowed) || report.deletions.some((d) => !d.allowed);
  return denied || (failOn === 'warn' && report.summary.warnings > 0) ? ExitCode.Violations : ExitCode.Ok;
}

async function validate(positional: string[], flags: ValidateFlags, io: CliIO): Promise<number> {
  const userInfo = { username: flags.as, groups: flags.asGroup };
  let output: ValidateFormat | undefined;
  try {
    if (!isFormat(VALIDATE_FORMATS, flags.output))
      throw notOneOf('-o/--output', flags.output, 'an output format', formatNames(VALIDATE_FORMATS));
    output = flags.output;
    const failOn = FAIL_ON.find((f) => f === flags.failOn);
    if (failOn === undefined) throw notOneOf('--fail-on', flags.failOn, 'a severity', FAIL_ON);
    const paths = [...positional, ...flags.filename];
    const renders: RenderSpec[] = [
      ...flags.kustomize.map((dir) => ({ kind: 'kustomize' as const, dir })),
      ...flags.render.map((command) => ({ kind: 'command' as const, command })),
    ];
    if (paths.length === 0 && renders.length === 0)
      throw new AppError(
        'USAGE',
        'give the manifests to validate: files, directories, or - for stdin (or -f PATH, -k DIR, --render CMD)',
      );
    // --old holds manifests as they are; rendered objects are judged against the same render at a revision.
    if (renders.length > 0 && flags.old.length > 0)
      throw flagError('--old', 'cannot go with -k or --render', 'give --old-ref: renders run at that revision too');
    const renderTimeoutMs = duration('--render-timeout', flags.renderTimeout);
    const policy = await cliPolicy(flags.config, io);
    const [{ readInputs }, { validateInputs }] = await Promise.all([
      import('../../../infrastructure/manifests/inputs.js'),
      import('../../validate/run.js'),
    ]);
    const crds =
      flags.crd.length === 0
        ? undefined
        : (await import('../../validate/crd.js')).CrdSet.parse(
            (await Promise.all(flags.crd.map((f) => crdFiles(f, io.cwd)))).flat(),
          );
    const read =
      paths.length === 0
        ? { files: [], problems: [], notes: [] }
        : await readInputs(paths, {
            cwd: io.cwd,
            readStdin: () => readBounded(io.stdin, STDIN_NAME),
            exclude: flags.exclude,
          });
    // A namespace name is a DNS label (RFC 1123), as the API server requires.
    if (
      flags.namespace !== undefined &&
      (flags.namespace.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(flags.namespace))
    )
      throw flagError(
        '-n/--namespace',
        `${JSON.stringify(flags.namespace)} is not a namespace name`,
        'give lowercase letters, digits and "-", at most 63',
      );
    const common = {
      policy,
      userInfo,
      ...(crds ? { crds } : {}),
      ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
      ...(flags.oldRef === undefined ? {} : { oldRef: flags.oldRef }),
    };
    const reports: ValidateReport[] = [];
    if (paths.length > 0)
      reports.push(
        validateInputs(read.files, await oldInputs(paths, flags, io), {
          ...common,
          read: { problems: read.problems, notes: read.notes },
          ...(flags.oldRef !== undefined
            ? { oldSource: `at ${flags.oldRef}` }
            : flags.old.length > 0
              ? { oldSource: `in --old ${flags.old.join(', ')}` }
              : {}),
        }),
      );
    const { renderBothSides, renderLabel } = await import('../../validate/render.js');
    if (renders.length > 0) {
      const pairs = await renderBothSides(renders, {
        cwd: io.cwd,
        env: io.env,
        timeoutMs: renderTimeoutMs,
        ...(flags.oldRef === undefined ? {} : { ref: flags.oldRef }),
      });
      for (const pair of pairs) {
        const judged = validateInputs(pair.files, pair.oldFiles, {
          ...common,
          read: { problems: [], notes: pair.notes },
          ...(flags.oldRef === undefined ? {} : { oldSource: `in ${pair.label} at ${flags.oldRef}` }),
        });
        // A render that prints nothing (a Makefile target that lost its output) must not pass unseen.
        if (judged.results.length === 0 && flags.allowEmpty !== true)
          judged.problems.push({
            file: pair.label,
            message: 'rendered no objects; give --allow-empty if none are expected',
          });
        reports.push(judged);
      }
    }
    const report = mergeReports(reports);
    const given = [...paths.map((p) => (p === STDIN ? STDIN_NAME : p)), ...renders.map(renderLabel)];
    // A failed `kustomize build | hookkeeper validate -` without pipefail sends nothing: that must not pass.
    if (report.results.length === 0 && report.problems.length === 0 && flags.allowEmpty !== true)
      throw new AppError(
        'INPUT_INVALID',
        `no objects to validate in ${given.join(', ')}: ` +
          'an empty stream is what a failed `kustomize build` or `helm template` sends to a pipe without pipefail; ' +
          'give --allow-empty if no object is expected',
        { problems: read.notes.map((message) => ({ message })) },
      );
    const render = await VALIDATE_FORMATS[output].load();
    (output === 'text' ? writeText : write)(
      io.stdout,
      render(report, { showPatches: flags.showPatches === true, failOn }),
    );
    if (report.problems.length > 0) {
      const n = report.problems.length;
      const head = `cannot validate ${n === 1 ? 'an input' : `${n} inputs`}: unreadable, not Kubernetes objects, or defined twice; the others are reported`;
      writeText(io.stderr, await errorText(new AppError('INPUT_INVALID', head, { problems: report.problems }), output));
    }
    return exitCode(report, failOn);
  } catch (err) {
    // A CI system reads the report file, not the log: a machine format still says what failed.
    if (output !== undefined && output !== 'text') {
      const render = await VALIDATE_FORMATS[output].load();
      write(io.stdout, render(failedReport(userInfo, err), { showPatches: false }));
    }
    writeText(io.stderr, await errorText(err, output));
    return exitCodeFor(err);
  }
}

/**
 * What goes to stderr about an error. Under `-o github` the runner reads stderr for workflow commands too, and file
 * and object names come from the pull request: one line, its data escaped as a command's message is.
 */
async function errorText(err: unknown, output: ValidateFormat | undefined): Promise<string> {
  const text = `hookkeeper validate: ${describeError(err)}`;
  if (output !== 'github') return text;
  const { escapeData } = await import('../../validate/github.js');
  return `${escapeData(text.trimEnd()).replace(/##\[/g, '#%23[')}\n`;
}

/** A --crd file, or every .yaml, .yml and .json file under a --crd directory (a CRD bundle), in name order. */
async function crdFiles(given: string, cwd: string): Promise<{ file: string; text: string }[]> {
  const path = resolve(cwd, given);
  const fail = (cause: Error): never => {
    throw new AppError('USAGE', `--crd ${given}: ${cause.message}`, { cause });
  };
  const info = await stat(path).catch(fail);
  const files = info.isDirectory()
    ? (await readdir(path, { recursive: true }).catch(fail))
        .filter((f) => /\.(ya?ml|json)$/i.test(f))
        .sort()
        .map((f) => join(path, f))
    : [path];
  if (files.length === 0) throw new AppError('USAGE', `--crd ${given}: no .yaml, .yml or .json file in this directory`);
  return Promise.all(
    files.map(async (file) => ({
      file: file === path ? given : join(given, relative(path, file)),
      text: await readFile(file, 'utf8').catch(fail),
    })),
  );
}
