// `hookkeeper audit`: the live cluster through the webhook's engine, plus stuck deletions and orphaned owners.
// Flags -> kubeconfig -> runAudit -> table, JSON, PolicyReports or OpenReports -> exit code (0 clean, 1 findings,
// 2 usage, 3 cluster: unreachable, unauthorized, CRDs not installed).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AUDIT_FORMATS } from '../../audit/formats.js';
import type { AuditProgress } from '../../audit/run.js';
import { describeError } from '../../../errors.js';
import { describeFormats, formatNames, isFormat } from '../../../infrastructure/format.js';
import { ExitCode, exitCodeFor, write, writeText, type CliIO } from '../io.js';
import { duration, flagError, notOneOf } from '../flags.js';
import { cliPolicy } from '../policy.js';
import { rulesHelp } from '../rules-help.js';

interface AuditFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  allNamespaces?: boolean;
  config?: string;
  stuckAfter: string;
  output: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('audit')
    .description(
      'audit the hooks of a live cluster: policy violations of stored objects, stuck deletions and orphaned hook owners',
    )
    .option(
      '--kubeconfig <file>',
      'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account)',
    )
    .option('--context <name>', 'kubeconfig context to use')
    .option('-n, --namespace <ns>', 'audit one namespace (default: all namespaces)')
    .option('-A, --all-namespaces', "audit every namespace: the default, not the kubeconfig context's namespace")
    .option('--config <file>', 'policy file (default: $HOOKKEEPER_CONFIG, else the embedded default policy)')
    .option(
      '--stuck-after <duration>',
      'a deletion held by hooks for longer than this is stuck (e.g. 90s, 30m, 2h)',
      '30m',
    )
    .option(
      '-o, --output <format>',
      `output format: ${describeFormats(AUDIT_FORMATS)}; reports as a YAML stream`,
      'text',
    )
    .addHelpText(
      'after',
      [
        '',
        'Lists Machines, MachineSets and ControlPlaneMachineSets (machine.openshift.io) and Cluster API Machines,',
        'MachineSets and MachineDeployments page by page; a kind whose CRD is not installed is skipped with a note.',
        '',
        ...rulesHelp('audit'),
        '',
        'Exit codes: 0 clean (warnings do not fail), 1 findings, 2 usage error,',
        '3 cluster error (unreachable, unauthorized or forbidden, none of the CRDs installed).',
      ].join('\n'),
    )
    .action(async (flags: AuditFlags) => {
      done(await audit(flags, io));
    });
}

/** "auditing machines.machine.openshift.io: 1500 objects" on one rewritten stderr line, for terminals only. */
function progress(io: CliIO): ((p: AuditProgress) => void) | undefined {
  if ((io.stderr as { isTTY?: boolean }).isTTY !== true) return undefined;
  return (p) => io.stderr.write(`\r\u001b[Kauditing ${p.resource}: ${p.objects} objects (${p.total} in all)`);
}

async function audit(flags: AuditFlags, io: CliIO): Promise<number> {
  const onProgress = progress(io);
  try {
    if (flags.allNamespaces && flags.namespace !== undefined)
      throw flagError(
        '-A/--all-namespaces',
        'cannot go with -n/--namespace',
        'give one of them (all namespaces is the default)',
      );
    const output = flags.output;
    if (!isFormat(AUDIT_FORMATS, output))
      throw notOneOf('-o/--output', output, 'an output format', formatNames(AUDIT_FORMATS));
    const format = AUDIT_FORMATS[output];
    const stuckAfterMs = duration('--stuck-after', flags.stuckAfter);
    const policy = await cliPolicy(flags.config, io);
    const [
      { connect, serviceAccountLookup },
      { createLister },
      { runAudit },
      { apiServerMetrics },
      { crdReader },
      render,
    ] = await Promise.all([
      import('../../../infrastructure/kube/connect.js'),
      import('../../../infrastructure/kube/lister.js'),
      import('../../audit/run.js'),
      import('../../../infrastructure/kube/metrics.js'),
      import('../../../infrastructure/kube/crds.js'),
      format.load(),
    ]);
    const cluster = await connect({
      ...(flags.kubeconfig ? { kubeconfig: resolve(io.cwd, flags.kubeconfig) } : {}),
      ...(flags.context ? { context: flags.context } : {}),
      env: io.env,
    });
    const report = await runAudit({
      lister: createLister(cluster),
      policy,
      now: () => new Date(),
      stuckAfterMs,
      serviceAccountExists: serviceAccountLookup(cluster),
      ownerGrants: true,
      ...(onProgress ? { onProgress } : {}),
      ...(flags.namespace ? { namespace: flags.namespace } : {}),
      recordPasses: format.recordsPasses,
      apiServerMetrics: apiServerMetrics(cluster),
      readCrd: crdReader(cluster),
    });
    if (onProgress) io.stderr.write('\r\u001b[K');
    (output === 'text' ? writeText : write)(io.stdout, render(report, { tty: io.isTTY }));
    return report.summary.fail > 0 ? ExitCode.Violations : ExitCode.Ok;
  } catch (err) {
    if (onProgress) io.stderr.write('\r\u001b[K');
    writeText(io.stderr, `hookkeeper audit: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}
