// `hookkeeper serve`: the webhook. Flags -> startServer; SIGTERM/SIGINT -> drain and exit 0.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError, describeError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { startServer } from '../../server/serve.js';
import { ExitCode, write, type CliIO } from '../io.js';
import { collect, wholeNumber } from '../flags.js';

interface ServeFlags {
  config?: string;
  host: string;
  port: string;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
  clientCn: string[];
  devCertDir: string;
  logLevel: string;
  reloadInterval: string;
  shutdownGrace: string;
}

export function register(program: Command, io: CliIO, done: (code: number) => void): void {
  program
    .command('serve')
    .description('serve the validating (/validate) and mutating (/mutate) admission webhooks over HTTPS')
    .option('--config <file>', 'policy file (default: $HOOKKEEPER_CONFIG, else the embedded default policy)')
    .option('--host <addr>', 'address to listen on', '0.0.0.0')
    .option('--port <n>', 'HTTPS port', '8443')
    .option('--tls-cert <file>', 'serving certificate (PEM); reloaded when the file changes')
    .option('--tls-key <file>', 'serving key (PEM); reloaded when the file changes')
    .option('--client-ca <file>', 'require client certificates signed by this CA (mTLS)')
    .option('--client-cn <name>', 'with --client-ca: accept only this client certificate CN (repeatable)', collect, [])
    .option('--dev-cert-dir <dir>', 'where development certificates are generated when --tls-cert/--tls-key are not given', '.dev-certs')
    .option('--log-level <level>', 'trace, debug, info, warn, error', 'info')
    .option('--reload-interval <seconds>', 'how often certificate and policy files are checked for changes', '5')
    .option('--shutdown-grace <seconds>', 'how long in-flight requests may finish after SIGTERM', '20')
    .action(async (flags: ServeFlags) => {
      done(await serve(flags, io));
    });
}

async function serve(flags: ServeFlags, io: CliIO): Promise<number> {
  const logger = createLogger({ level: io.env['HOOKKEEPER_LOG_LEVEL'] ?? flags.logLevel });
  try {
    if (Boolean(flags.tlsCert) !== Boolean(flags.tlsKey)) throw new AppError('USAGE', '--tls-cert and --tls-key go together');
    if (flags.clientCn.length > 0 && !flags.clientCa) throw new AppError('USAGE', '--client-cn needs --client-ca');
    const configFile = flags.config ?? io.env['HOOKKEEPER_CONFIG'];
    const running = await startServer({
      host: flags.host,
      port: wholeNumber('--port', flags.port),
      ...(configFile ? { configFile: resolve(io.cwd, configFile) } : {}),
      ...(flags.tlsCert ? { tlsCertFile: resolve(io.cwd, flags.tlsCert) } : {}),
      ...(flags.tlsKey ? { tlsKeyFile: resolve(io.cwd, flags.tlsKey) } : {}),
      ...(flags.clientCa ? { clientCaFile: resolve(io.cwd, flags.clientCa) } : {}),
      clientCommonNames: flags.clientCn,
      devCertDir: resolve(io.cwd, flags.devCertDir),
      reloadIntervalMs: wholeNumber('--reload-interval', flags.reloadInterval) * 1000,
      shutdownGraceMs: wholeNumber('--shutdown-grace', flags.shutdownGrace) * 1000,
    }, logger);
    await new Promise<void>((resolveSignal) => {
      const onSignal = (signal: NodeJS.Signals): void => {
        logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
        resolveSignal();
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    });
    await running.shutdown();
    logger.info('stopped');
    return ExitCode.Ok;
  } catch (err) {
    write(io.stderr, `hookkeeper serve: ${describeError(err)}`);
    return err instanceof AppError && ['CONFIG_INVALID', 'USAGE', 'TLS_INVALID'].includes(err.code) ? ExitCode.Usage : 1;
  }
}
