// `hookkeeper admission-policy render`: the policy compiled to native admission policies (src/native), printed for
// `kubectl apply -f -`; every divergence from the webhook goes to stderr as a note.
import type { Command } from 'commander';
import { AppError, describeError } from '../../errors.js';
import { kubernetesVersion } from '../flags.js';
import { cliPolicy } from '../policy.js';
import { ExitCode, exitCodeFor, manifestText, write } from '../io.js';
import type { CliIO } from '../io.js';

interface RenderFlags {
  config?: string;
  output: string;
  k8sVersion: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  const group = program
    .command('admission-policy')
    .description(
      'native admission policies: the API server enforces the policy in-process (ValidatingAdmissionPolicy, MutatingAdmissionPolicy), no webhook on the path',
    );
  group
    .command('render')
    .description(
      'print the ValidatingAdmissionPolicies, MutatingAdmissionPolicies and bindings compiled from the policy (for kubectl apply -f -); notes on what native mode does differently go to stderr',
    )
    .option('--config <file>', 'policy file (default: $HOOKKEEPER_CONFIG, else the embedded default policy)')
    .option('-o, --output <format>', 'yaml (multi-document) or json (a v1 List)', 'yaml')
    .option(
      '--k8s-version <version>',
      'the cluster version: 1.36+ gets MutatingAdmissionPolicy v1, 1.34-1.35 v1beta1 (behind a feature gate); older is refused',
      '1.36',
    )
    .action(async (flags: RenderFlags) => {
      done(await render(flags, io));
    });
}

async function render(flags: RenderFlags, io: CliIO): Promise<number> {
  try {
    if (flags.output !== 'yaml' && flags.output !== 'json')
      throw new AppError('USAGE', `--output must be yaml or json, got "${flags.output}"`);
    const k8sVersion = kubernetesVersion('--k8s-version', flags.k8sVersion);
    const policy = await cliPolicy(flags.config, io);
    const { renderNativePolicies } = await import('../../native/render.js');
    const { objects, notes } = renderNativePolicies(policy, { k8sVersion });
    write(io.stdout, await manifestText(objects, flags.output));
    for (const note of notes) write(io.stderr, `note: ${note}`);
    return ExitCode.Ok;
  } catch (err) {
    write(io.stderr, `hookkeeper admission-policy render: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}
