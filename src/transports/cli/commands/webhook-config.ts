// `hookkeeper webhook-config render`: the two webhook configurations for a url or a Service, without kustomize.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError, describeError } from '../../../errors.js';
import type { RenderOptions } from '../../../compilers/deploy/render.js';
import { ExitCode, exitCodeFor, manifestText, write, writeText } from '../io.js';
import type { CliIO } from '../io.js';
import { flagError, notOneOf, wholeNumber } from '../flags.js';
import { cliPolicy } from '../policy.js';

interface RenderFlags {
  caBundle?: string;
  caFile?: string;
  url?: string;
  service?: string;
  namespace?: string;
  port?: string;
  name?: string;
  config?: string;
  output: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  const group = program
    .command('webhook-config')
    .description('the ValidatingWebhookConfiguration and MutatingWebhookConfiguration that register hookkeeper');
  group
    .command('render')
    .description(
      'print both webhook configurations (from webhook-config/base) for a url or a Service, with the caBundle set',
    )
    .option('--ca-bundle <base64>', 'base64 of the PEM CA certificate (what `hookkeeper certs` prints)')
    .option('--ca-file <file>', 'the PEM CA certificate file instead, e.g. certs/ca.crt')
    .option('--url <url>', 'https://HOST:PORT the API server calls; /validate and /mutate are appended')
    .option('--service <name>', 'the webhook Service name, instead of --url')
    .option(
      '--namespace <ns>',
      'the namespace hookkeeper runs in, the only one the webhooks leave unguarded: the Service namespace with --service; with --url, give it when hookkeeper runs in the cluster (without it every namespace is guarded)',
    )
    .option('--port <n>', 'the Service port (with --service)', '443')
    .option('--name <name>', 'metadata.name of both configurations (default hookkeeper)')
    .option(
      '--config <file>',
      "policy file whose default-hook rules the mutating webhook's matchCondition selects (default: $HOOKKEEPER_CONFIG, else the embedded default policy)",
    )
    .option('-o, --output <format>', 'yaml (multi-document) or json (a v1 List)', 'yaml')
    .action(async (flags: RenderFlags) => {
      done(await render(flags, io));
    });
}

async function render(flags: RenderFlags, io: CliIO): Promise<number> {
  try {
    if (flags.output !== 'yaml' && flags.output !== 'json')
      throw notOneOf('-o/--output', flags.output, 'an output format', ['yaml', 'json']);
    if ((flags.caBundle === undefined) === (flags.caFile === undefined))
      throw flagError('--ca-bundle, --ca-file', 'both or neither given', 'give exactly one of them');
    if ((flags.url === undefined) === (flags.service === undefined))
      throw flagError('--url, --service', 'both or neither given', 'give exactly one of them');
    if (flags.service !== undefined && flags.namespace === undefined)
      throw flagError('--service', 'needs --namespace', "give the service's namespace too");
    const opts: RenderOptions = {
      // certs/pki loads @peculiar/x509: only when a CA file is to be encoded.
      caBundle:
        flags.caBundle ??
        (await import('../../../infrastructure/certs/pki.js')).caBundle(
          await readCaFile(resolve(io.cwd, flags.caFile ?? '')),
        ),
      ...(flags.url !== undefined && { url: flags.url }),
      ...(flags.service !== undefined && {
        service: {
          name: flags.service,
          namespace: flags.namespace ?? '',
          port: wholeNumber('--port', flags.port ?? '443'),
        },
      }),
      ...(flags.url !== undefined && flags.namespace !== undefined && { namespace: flags.namespace }),
      ...(flags.name !== undefined && { name: flags.name }),
      policy: await cliPolicy(flags.config, io),
    };
    const { renderWebhookConfigurations } = await import('../../../compilers/deploy/render.js');
    write(io.stdout, await manifestText(renderWebhookConfigurations(opts), flags.output));
    const open = opts.service?.namespace ?? opts.namespace;
    write(
      io.stderr,
      open === undefined
        ? 'note: every namespace is guarded (hookkeeper outside the cluster; --namespace names the one it runs in)'
        : `note: every namespace but ${open}, where hookkeeper runs, is guarded`,
    );
    return ExitCode.Ok;
  } catch (err) {
    writeText(io.stderr, `hookkeeper webhook-config render: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}

async function readCaFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new AppError('INPUT_INVALID', `cannot read --ca-file ${file}`, { cause });
  }
}
