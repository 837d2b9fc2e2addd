// The serving certificate at start-up: the files given, or a generated development pair, loaded from what two
// agreeing reads saw (src/transports/server/file-poll.ts); the watch then starts from that read's fingerprint.
import type { Logger } from '../../infrastructure/log.js';
import type { Metrics } from './metrics.js';
import type { ServeOptions } from './serve-options.js';
import { loadTls, tlsPaths, type LoadedTls, type TlsFiles } from './tls.js';
import { readSettled, type ReadFile } from './file-poll.js';

export interface ServingCert {
  files: TlsFiles;
  loaded: LoadedTls;
  /** What the reload watch starts from. */
  fingerprint: string;
}

export async function loadServingCert(
  options: ServeOptions,
  read: ReadFile,
  now: () => Date,
  logger: Logger,
  metrics: Metrics,
): Promise<ServingCert> {
  const files = await certificateFiles(options, logger);
  const start = await readSettled(tlsPaths(files), read);
  const loaded = await loadTls(files, start.read, now());
  metrics.certificateExpiry.set(loaded.notAfter.getTime() / 1000);
  return { files, loaded, fingerprint: start.fingerprint };
}

async function certificateFiles(options: ServeOptions, logger: Logger): Promise<TlsFiles> {
  let files: TlsFiles;
  if (options.tlsCertFile && options.tlsKeyFile) {
    files = { certFile: options.tlsCertFile, keyFile: options.tlsKeyFile };
  } else {
    // Imported only here: certificate generation (@peculiar/x509) is not needed when certificates are given.
    const { ensureDevCertificates } = await import('../../infrastructure/certs/store.js');
    const dev = await ensureDevCertificates(options.devCertDir);
    logger.warn(
      { dir: options.devCertDir, caFile: dev.caFile },
      'no --tls-cert/--tls-key: serving a generated development certificate for 127.0.0.1 and localhost',
    );
    files = { certFile: dev.certFile, keyFile: dev.keyFile };
  }
  if (options.clientCaFile) files.clientCaFile = options.clientCaFile;
  return files;
}
