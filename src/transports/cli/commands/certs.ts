// `hookkeeper certs`: makes the self-managed CA and serving certificate, and prints the caBundle to paste into the webhooks.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { describeError } from '../../../errors.js';
import { ExitCode, exitCodeFor, write, writeText } from '../io.js';
import type { CliIO } from '../io.js';
import { collect, flagError, wholeNumber } from '../flags.js';

interface CertsFlags {
  out?: string;
  service?: string;
  namespace?: string;
  ip: string[];
  days?: string;
  renew?: boolean;
  renewBefore?: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('certs')
    .description(
      'create a CA and a serving certificate for the webhook Service in --out (ca.crt, ca.key, tls.crt, tls.key); ' +
        'prints the base64 caBundle on stdout',
    )
    .option('--out <dir>', 'directory for the files (required)')
    .option('--service <name>', 'the webhook Service name (required)')
    .option('--namespace <ns>', 'the webhook Service namespace (required)')
    .option('--ip <ip>', 'an IP SAN to add, repeatable (e.g. 127.0.0.1 for a url-registered webhook)', collect, [])
    .option('--days <n>', 'serving certificate lifetime in days', '365')
    .option('--renew', 'keep the CA in --out and re-issue the serving certificate from it')
    .option(
      '--renew-before <days>',
      'with --renew: only re-issue if it expires within this many days or its names changed',
    )
    .action(async (flags: CertsFlags) => {
      done(await certs(flags, io));
    });
}

async function certs(flags: CertsFlags, io: CliIO): Promise<number> {
  try {
    const missing = (['out', 'service', 'namespace'] as const).filter((f) => !flags[f]);
    if (missing.length > 0)
      throw flagError(missing.map((f) => `--${f}`).join(', '), 'missing', 'give them: see hookkeeper certs --help');
    const out = resolve(io.cwd, flags.out ?? '');
    const service = flags.service ?? '';
    const namespace = flags.namespace ?? '';
    if (flags.renewBefore !== undefined && !flags.renew)
      throw flagError('--renew-before', 'needs --renew', 'give --renew too');
    // Certificate generation (@peculiar/x509) loads only for this command.
    const [{ runCerts }, { serviceDnsNames }] = await Promise.all([
      import('../../../infrastructure/certs/store.js'),
      import('../../../infrastructure/certs/pki.js'),
    ]);
    const result = await runCerts({
      out,
      service,
      namespace,
      ips: flags.ip,
      days: wholeNumber('--days', flags.days ?? '365'),
      renew: flags.renew === true,
      renewBefore: flags.renewBefore === undefined ? undefined : wholeNumber('--renew-before', flags.renewBefore),
    });
    write(io.stdout, result.caBundle);
    const names = [...serviceDnsNames(service, namespace), ...flags.ip].join(', ');
    const until = result.notAfter.toISOString();
    const lines = result.issued
      ? [
          `${result.caCreated ? 'created a CA and' : 'kept the CA and issued'} a serving certificate in ${out}`,
          `  names: ${names}`,
          `  valid until ${until}`,
          '  the caBundle for the webhook configurations is on stdout (base64 of ca.crt)',
        ]
      : [`the serving certificate in ${out} is valid until ${until} and fits: nothing written`];
    writeText(io.stderr, lines.join('\n'));
    return ExitCode.Ok;
  } catch (err) {
    writeText(io.stderr, `hookkeeper certs: ${describeError(err)}`);
    return exitCodeFor(err);
  }
}
