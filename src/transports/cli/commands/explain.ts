// `hookkeeper explain machine NAME` (also `kubectl hookkeeper explain ...`): why one Machine's deletion is held, whose
// hooks hold it, who may act and the safe next step. Flags -> the Machine (cluster or -f files) -> facts ->
// explainMachine -> text, JSON or YAML -> exit code (0 explained, 2 usage or input, 3 cluster).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { describeError } from '../../../errors.js';
import { readBounded } from '../../../infrastructure/manifests/inputs.js';
import { collect, flagError, notOneOf } from '../flags.js';
import { ExitCode, exitCodeFor, write, writeText, type CliIO } from '../io.js';
import { cliPolicy } from '../policy.js';

interface ExplainFlags {
  namespace?: string;
  filename: string[];
  kubeconfig?: string;
  context?: string;
  config?: string;
  output: string;
}

const OUTPUTS = ['text', 'json', 'yaml'] as const;

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('explain')
    .description("why a Machine's deletion is held: its hooks, their owners, who may act, and the safe next step")
    .argument(
      '[resource...]',
      'machine NAME, machine/NAME, machines.cluster.x-k8s.io/NAME or machines.machine.openshift.io/NAME',
    )
    .option('-n, --namespace <ns>', "the Machine's namespace (default: look in every namespace)")
    .option(
      '-f, --filename <file>',
      'read the Machine from a file (a saved object or a must-gather dump), offline; - for stdin (repeatable)',
      collect,
      [],
    )
    .option(
      '--kubeconfig <file>',
      'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account)',
    )
    .option('--context <name>', 'kubeconfig context to use')
    .option('--config <file>', 'policy file (default: $HOOKKEEPER_CONFIG, else the embedded default policy)')
    .option('-o, --output <format>', `output format: ${OUTPUTS.join(', ')}`, 'text')
    .addHelpText(
      'after',
      [
        '',
        'With -f, the Machine is read from the files (picked by name and -n when they hold several) and the cluster',
        'is not asked: the Node, RBAC grants, service accounts and controller health are reported as unknown.',
        '',
        'Exit codes: 0 explained (whatever the Machine state), 2 usage or input error (no such Machine, an',
        'ambiguous name), 3 cluster error (unreachable, unauthorized, no Machine CRD installed).',
      ].join('\n'),
    )
    .action(async (resource: string[], flags: ExplainFlags) => {
      done(await explain(resource, flags, io));
    });
}

async function explain(args: readonly string[], flags: ExplainFlags, io: CliIO): Promise<number> {
  try {
    const output = flags.output;
    if (!(OUTPUTS as readonly string[]).includes(output))
      throw notOneOf('-o/--output', output, 'an output format', OUTPUTS);
    const offline = flags.filename.length > 0;
    if (offline && (flags.kubeconfig !== undefined || flags.context !== undefined))
      throw flagError(
        '-f/--filename',
        'reads the Machine offline: it cannot go with --kubeconfig or --context',
        'give one or the other',
      );
    const policy = await cliPolicy(flags.config, io);
    const [{ parseTarget }, { explainMachine }] = await Promise.all([
      import('../../explain/target.js'),
      import('../../../core/explain/explain.js'),
    ]);
    const target = parseTarget(args, offline);
    let explanation;
    if (offline) {
      const { machineFromFiles, OFFLINE_FACTS } = await import('../../explain/from-files.js');
      const { object, machines } = await machineFromFiles(flags.filename, target, flags.namespace, {
        cwd: io.cwd,
        readStdin: () => readBounded(io.stdin, 'stdin'),
      });
      // The files' Machines stand for the cluster's, as far as the files go (the detail says so).
      const facts = { ...OFFLINE_FACTS, quorum: { status: 'known' as const, machines } };
      explanation = explainMachine({ object, policy, facts });
    } else {
      const [{ connect, serviceAccountLookup }, { createLister }, { findMachine, gatherFacts }] = await Promise.all([
        import('../../../infrastructure/kube/connect.js'),
        import('../../../infrastructure/kube/lister.js'),
        import('../../explain/from-cluster.js'),
      ]);
      const access = await connect({
        ...(flags.kubeconfig ? { kubeconfig: resolve(io.cwd, flags.kubeconfig) } : {}),
        ...(flags.context ? { context: flags.context } : {}),
        env: io.env,
      });
      const object = await findMachine(access, target, flags.namespace);
      const deps = { access, lister: createLister(access), serviceAccountExists: serviceAccountLookup(access) };
      const { facts, notes } = await gatherFacts(deps, policy, object, Date.now());
      const explained = explainMachine({ object, policy, facts });
      explanation = { ...explained, notes: [...explained.notes, ...notes] };
    }
    if (output === 'json') write(io.stdout, JSON.stringify(explanation, null, 2));
    else if (output === 'yaml') write(io.stdout, (await import('yaml')).stringify(explanation, { lineWidth: 0 }));
    else writeText(io.stdout, (await import('../../explain/text-output.js')).renderText(explanation));
    return ExitCode.Ok;
  } catch (err) {
    writeText(io.stderr, `hookkeeper explain: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}
