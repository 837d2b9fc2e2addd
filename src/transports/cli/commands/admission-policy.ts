// `hookkeeper admission-policy render`: the policy compiled to native admission policies (src/compilers/native), printed for
// `kubectl apply -f -`; every divergence from the webhook goes to stderr as a note.
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { describeError } from '../../../errors.js';
import { flagError, kubernetesVersion, notOneOf } from '../flags.js';
import { cliPolicy } from '../policy.js';
import { ExitCode, exitCodeFor, manifestText, write, writeText } from '../io.js';
import type { CliIO } from '../io.js';
import { DEFAULT_STATIC_ROOT } from '../../../compilers/native/static-layout.js';
import {
  DEFAULT_K8S_VERSION,
  DEFAULT_STATIC_K8S_VERSION,
  NATIVE_MIN_MINOR,
} from '../../../compilers/native/version.js';

interface RenderFlags {
  config?: string;
  output: string;
  k8sVersion?: string;
  static?: string;
  staticRoot: string;
  selfProtection: boolean;
  webhookName: string[];
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
      `the cluster version: 1.36+ gets MutatingAdmissionPolicy v1, 1.34-1.35 v1beta1 (behind a feature gate); older is refused (default: ${DEFAULT_K8S_VERSION}; with --static ${DEFAULT_STATIC_K8S_VERSION}, the first that loads static manifests without a feature gate)`,
    )
    .option(
      '--static <dir>',
      'write static admission manifests (loaded by kube-apiserver from its disk, Kubernetes 1.37, or 1.36 with a feature gate) into DIR: validating-policies/, mutating-policies/ and admission-configuration.yaml',
    )
    .option(
      '--static-root <path>',
      'with --static: where DIR is installed on every control-plane node (admission-configuration.yaml points there)',
      DEFAULT_STATIC_ROOT,
    )
    .option(
      '--no-self-protection',
      "with --static: leave out the policy that refuses changes to hookkeeper's API objects to all but break-glass",
    )
    .option(
      '--webhook-name <name>',
      'with --static: a webhook configuration name self-protection guards (repeatable; default: hookkeeper)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .action(async (flags: RenderFlags, command: Command) => {
      done(await render(flags, command.getOptionValueSource('output') === 'cli', io));
    });
}

async function render(flags: RenderFlags, outputGiven: boolean, io: CliIO): Promise<number> {
  try {
    if (flags.output !== 'yaml' && flags.output !== 'json')
      throw notOneOf('-o/--output', flags.output, 'an output format', ['yaml', 'json']);
    const version = flags.k8sVersion ?? (flags.static === undefined ? DEFAULT_K8S_VERSION : DEFAULT_STATIC_K8S_VERSION);
    const k8sVersion = kubernetesVersion('--k8s-version', version, NATIVE_MIN_MINOR);
    if (flags.static === undefined) {
      const given = ['--static-root', '--no-self-protection', '--webhook-name'].filter((f) => used(f, flags));
      if (given.length > 0)
        throw flagError(given.join(', '), 'only applies with --static DIR', 'give --static DIR too');
    } else if (outputGiven) {
      throw flagError(
        '-o/--output',
        'does not apply with --static (static manifests are written as YAML files)',
        'leave it out',
      );
    }
    const policy = await cliPolicy(flags.config, io);
    if (flags.static !== undefined) return await renderStatic(flags.static, flags, k8sVersion, policy, io);
    const { renderNativePolicies } = await import('../../../compilers/native/render.js');
    const { objects, notes } = renderNativePolicies(policy, { k8sVersion });
    write(io.stdout, await manifestText(objects, flags.output));
    for (const note of notes) writeText(io.stderr, `note: ${note}`);
    return ExitCode.Ok;
  } catch (err) {
    writeText(io.stderr, `hookkeeper admission-policy render: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}

function used(flag: string, flags: RenderFlags): boolean {
  if (flag === '--static-root') return flags.staticRoot !== DEFAULT_STATIC_ROOT;
  if (flag === '--no-self-protection') return !flags.selfProtection;
  return flags.webhookName.length > 0;
}

/** Each file is written whole (temporary file, then rename): an API server watching the directory never reads half. */
async function renderStatic(
  dir: string,
  flags: RenderFlags,
  k8sVersion: string,
  policy: Awaited<ReturnType<typeof cliPolicy>>,
  io: CliIO,
): Promise<number> {
  const [{ staticManifests }, { manifestDirHash, staticFileText }] = await Promise.all([
    import('../../../compilers/native/static.js'),
    import('../../../compilers/deploy/static-files.js'),
  ]);
  const { files, notes } = staticManifests(policy, {
    k8sVersion,
    root: flags.staticRoot,
    selfProtection: flags.selfProtection
      ? { webhookConfigurations: flags.webhookName.length > 0 ? flags.webhookName : ['hookkeeper'] }
      : false,
  });
  const { default: writeFileAtomic } = await import('write-file-atomic');
  const base = resolve(io.cwd, dir);
  for (const file of files) {
    const target = join(base, ...file.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    const content = staticFileText(file);
    await writeFileAtomic(target, content, { mode: 0o644 });
    const count = `${file.documents.length} object${file.documents.length === 1 ? '' : 's'}`;
    // What the API server's last_config_info metric shows once this is the only file of its plugin's directory.
    const hash = file.path.includes('/') ? manifestDirHash([{ name: basename(target), content }]) : undefined;
    write(io.stdout, `wrote ${target} (${count}${hash ? `; directory hash ${hash}` : ''})`);
  }
  for (const note of notes) writeText(io.stderr, `note: ${note}`);
  return ExitCode.Ok;
}
