// `hookkeeper test PATH...`: a team's own policy tested by PolicyTest files (requests and the verdict, messages,
// warnings and hooks they must end with), judged by the webhook's own path offline, as `kyverno test` and
// `gator verify` test theirs.
import type { Command } from 'commander';
import { notOneOf } from '../flags.js';
import { describeError } from '../../../errors.js';
import { formatNames, isFormat } from '../../../infrastructure/format.js';
import { TEST_FORMATS } from '../../policy-test/formats.js';
import type { PolicyCache } from '../../policy-test/load.js';
import { ExitCode, exitCodeFor, write, writeText, type CliIO } from '../io.js';

interface TestFlags {
  output: string;
}

const FORMATS = formatNames(TEST_FORMATS);

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('test')
    .description('run the policy tests (*.hookkeeper-test.yaml) under each path: exit 0 all pass, 1 some fail')
    .argument('<path...>', 'test files, or directories searched for *.hookkeeper-test.yaml (and .yml)')
    .option('-o, --output <format>', FORMATS.join(', '), 'text')
    .addHelpText(
      'after',
      '\nEach case is judged as the webhook judges the request (mutate, then validate), offline.\n\n' +
        'Exit codes: 0 every case passed, 1 some case failed, 2 usage or input error (a test file, an object\n' +
        'or a policy that cannot be used is reported beside the other results).',
    )
    .action(async (paths: string[], flags: TestFlags) => {
      done(await runTests(paths, flags, io));
    });
}

async function runTests(paths: readonly string[], flags: TestFlags, io: CliIO): Promise<number> {
  if (!isFormat(TEST_FORMATS, flags.output)) {
    writeText(
      io.stderr,
      `hookkeeper test: ${notOneOf('-o/--output', flags.output, 'an output format', FORMATS).message}`,
    );
    return ExitCode.Usage;
  }
  try {
    const [{ findTestFiles }, { loadTestFile }, { runFile }, { summarize }] = await Promise.all([
      import('../../policy-test/discover.js'),
      import('../../policy-test/load.js'),
      import('../../policy-test/run.js'),
      import('../../policy-test/report.js'),
    ]);
    const files = await findTestFiles(paths, io.cwd);
    const policies: PolicyCache = new Map();
    const results = [];
    for (const file of files) results.push(runFile(await loadTestFile(file, io.cwd, policies)));
    const report = summarize(results);
    const render = await TEST_FORMATS[flags.output].load();
    (flags.output === 'text' ? writeText : write)(io.stdout, render(report));
    if (report.summary.errors > 0) return ExitCode.Usage;
    return report.summary.failed > 0 ? ExitCode.Violations : ExitCode.Ok;
  } catch (err) {
    writeText(io.stderr, `hookkeeper test: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}
