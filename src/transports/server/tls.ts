// Serving certificate from files, hot-reloaded with server.setSecureContext() when service-ca or
// cert-manager rotates the mounted Secret. A bad new pair (mismatched, expired, not valid yet) is refused and the
// old one stays in use.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { validityProblem } from '../../infrastructure/certs/validity.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../infrastructure/log.js';
import type { Metrics } from './metrics.js';
import { watchFiles, type FileWatch, type ReadFile } from './file-poll.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** With a client CA, clients must present a certificate it signed (mTLS). */
  clientCaFile?: string;
}

export interface LoadedTls {
  options: SecureContextOptions;
  notAfter: Date;
}

/**
 * Reads and checks a pair; throws AppError TLS_INVALID naming the files when they do not form a usable pair.
 * `read`: on a reload, what the watcher's two agreeing reads saw (src/transports/server/file-poll.ts).
 */
export async function loadTls(files: TlsFiles, read: ReadFile = readFile, now: Date = new Date()): Promise<LoadedTls> {
  let cert: Buffer;
  let key: Buffer;
  let ca: Buffer | undefined;
  try {
    [cert, key, ca] = await Promise.all([
      read(files.certFile),
      read(files.keyFile),
      files.clientCaFile ? read(files.clientCaFile) : Promise.resolve(undefined),
    ]);
  } catch (cause) {
    throw new AppError('TLS_INVALID', `cannot read TLS files: ${(cause as Error).message}`, { cause });
  }
  const options: SecureContextOptions = { cert, key, minVersion: 'TLSv1.2', ...(ca ? { ca } : {}) };
  let notBefore: Date;
  let notAfter: Date;
  try {
    createSecureContext(options); // throws on a key that does not match the certificate
    const parsed = new X509Certificate(cert);
    notBefore = new Date(parsed.validFrom);
    notAfter = new Date(parsed.validTo);
  } catch (cause) {
    throw new AppError(
      'TLS_INVALID',
      `${files.certFile} and ${files.keyFile} are not a usable certificate and key: ${(cause as Error).message}`,
      { cause },
    );
  }
  const problem = validityProblem(notBefore, notAfter, now);
  if (problem)
    throw new AppError(
      problem.kind === 'expired' ? 'TLS_INVALID' : 'TLS_NOT_YET_VALID',
      `${files.certFile} ${problem.message}`,
    );
  return { options, notAfter };
}

/** The files a TLS setup is read from, in a fixed order (what the watcher fingerprints). */
export function tlsPaths(files: TlsFiles): string[] {
  return [files.certFile, files.keyFile, ...(files.clientCaFile ? [files.clientCaFile] : [])];
}

/** `since`: the fingerprint of the pair in use (readSettled's at start). */
export async function watchTls(
  server: Server,
  files: TlsFiles,
  intervalMs: number,
  logger: Logger,
  metrics: Metrics,
  options: { read?: ReadFile; now?: () => Date; since?: string } = {},
): Promise<FileWatch> {
  const now = options.now ?? (() => new Date());
  return watchFiles(
    tlsPaths(files),
    intervalMs,
    async (agreed) => {
      try {
        const loaded = await loadTls(files, agreed, now());
        server.setSecureContext(loaded.options);
        metrics.reloads.inc({ source: 'tls', result: 'success' });
        metrics.certificateExpiry.set(loaded.notAfter.getTime() / 1000);
        logger.info({ certFile: files.certFile, notAfter: loaded.notAfter.toISOString() }, 'reloaded TLS certificate');
      } catch (err) {
        metrics.reloads.inc({ source: 'tls', result: 'failure' });
        logger.error({ err }, 'refused new TLS certificate; keeping the one in use');
        // A certificate issued with a start date a little ahead of this clock becomes usable without another change.
        if (err instanceof AppError && err.code === 'TLS_NOT_YET_VALID') return 'retry';
      }
      return undefined;
    },
    options.read,
    options.since,
  );
}
