// `hookkeeper serve`: composes policy, TLS, logger and metrics into an HTTPS server, with hot reload of
// certificate and policy, optional mTLS, and a graceful drain on shutdown.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { DEFAULT_POLICY } from '../config/defaults.js';
import { loadPolicyFile } from '../config/load.js';
import type { Policy } from '../core/policy.js';
import type { ReviewContext, ReviewInput } from '../core/types.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import { createApp } from './app.js';
import { createMetrics, type Metrics } from './metrics.js';
import { loadTls, tlsPaths, watchTls, type TlsFiles } from './tls.js';
import { readAgreed, watchFiles, type FileWatch, type ReadFile } from './watch.js';

export interface ServeOptions {
  host: string;
  port: number;
  /** Policy file; none means the embedded default. */
  configFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Where generated dev certificates live when no certificate is given. */
  devCertDir: string;
  clientCaFile?: string;
  /** With mTLS, accept only client certificates whose subject CN is listed (empty: any the CA signed). */
  clientCommonNames?: readonly string[];
  /** How often mounted certificate and policy files are checked for changes. */
  reloadIntervalMs: number;
  /** How long in-flight requests may take to finish after SIGTERM. */
  shutdownGraceMs: number;
  /** Longest wait for a request's headers (default 10 s); tests use short values to check slow clients are cut off. */
  headersTimeoutMs?: number;
  /** Longest wait for a whole request, headers and body (default 30 s). */
  requestTimeoutMs?: number;
  /** Longest wait for a connection's TLS handshake (default 10 s; Node's own default is 120 s). */
  handshakeTimeoutMs?: number;
  gatherContext?: (input: ReviewInput) => ReviewContext | Promise<ReviewContext> | undefined;
  /** Told the policy in force at start and after each successful reload (e.g. to cache the parents it names). */
  onPolicy?: (policy: Policy) => void;
  /** An extra readiness condition (e.g. parent caches synced at startup). */
  ready?: () => boolean;
  /** How policy and certificate files are read (default: from disk); tests pass one that shows a file mid-write. */
  readFile?: ReadFile;
  /** The clock certificates' validity is checked against (default: the system clock). */
  now?: () => Date;
}

export interface RunningServer {
  server: Server;
  port: number;
  metrics: Metrics;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes. */
  shutdown(): Promise<void>;
}

/** After shutdown begins, how long requests still arriving on open connections are read and answered. */
const DRAIN_MS = 1_000;

export async function startServer(
  options: ServeOptions,
  logger: Logger,
  metrics: Metrics = createMetrics({ defaultMetrics: true }),
): Promise<RunningServer> {
  const read = options.readFile ?? readFile;
  // Policy and certificate are loaded from what two agreeing reads saw, and watched from there (src/server/watch.ts).
  const policyStart = options.configFile ? await readAgreed([options.configFile], read) : undefined;
  let policy: Policy =
    options.configFile && policyStart ? await loadPolicyFile(options.configFile, policyStart.read) : DEFAULT_POLICY;
  logger.info({ config: options.configFile ?? '(embedded default)' }, 'policy loaded');
  options.onPolicy?.(policy);

  let tlsFiles: TlsFiles;
  if (options.tlsCertFile && options.tlsKeyFile) {
    tlsFiles = { certFile: options.tlsCertFile, keyFile: options.tlsKeyFile };
  } else {
    // Imported only here: certificate generation (@peculiar/x509) is not needed when certificates are given.
    const { ensureDevCertificates } = await import('../certs/store.js');
    const dev = await ensureDevCertificates(options.devCertDir);
    logger.warn(
      { dir: options.devCertDir, caFile: dev.caFile },
      'no --tls-cert/--tls-key: serving a generated development certificate for 127.0.0.1 and localhost',
    );
    tlsFiles = { certFile: dev.certFile, keyFile: dev.keyFile };
  }
  if (options.clientCaFile) tlsFiles.clientCaFile = options.clientCaFile;
  const now = options.now ?? (() => new Date());
  const tlsStart = await readAgreed(tlsPaths(tlsFiles), read);
  const tls = await loadTls(tlsFiles, tlsStart.read, now());
  metrics.certificateExpiry.set(tls.notAfter.getTime() / 1000);

  let shuttingDown = false;
  const app = createApp({
    policy: () => policy,
    logger,
    metrics,
    ready: () => !shuttingDown && (options.ready?.() ?? true),
    ...(options.gatherContext ? { gatherContext: options.gatherContext } : {}),
  });
  const mtls = options.clientCaFile !== undefined;
  // The API server keeps connections alive between admission calls; a slow or stuck client must not pin
  // a socket forever. Node enforces headersTimeout/requestTimeout only when it sweeps its connections, every
  // 30 s by default, so a 10 s limit could take 40 s: sweep every second (or faster, for shorter limits).
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const connectionsCheckingInterval = Math.min(1_000, headersTimeout);
  // A connection that never completes its TLS handshake is not an HTTP connection yet, so the limits above do not
  // reach it: without this, Node would hold it for 120 s.
  const handshakeTimeout = options.handshakeTimeoutMs ?? 10_000;
  const server = createServer(
    { ...tls.options, requestCert: mtls, rejectUnauthorized: mtls, connectionsCheckingInterval, handshakeTimeout },
    app,
  );
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = headersTimeout;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  const allowedNames = options.clientCommonNames ?? [];
  if (mtls && allowedNames.length > 0) {
    server.on('secureConnection', (socket: TLSSocket) => {
      const cn = socket.getPeerCertificate().subject?.CN;
      const name = Array.isArray(cn) ? cn[0] : cn;
      if (!name || !allowedNames.includes(name)) {
        logger.warn({ cn: name }, 'rejected client certificate: common name not allowed');
        socket.destroy();
      }
    });
  }
  server.on('tlsClientError', (err) => logger.debug({ err }, 'TLS handshake failed'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  const watches: FileWatch[] = [
    await watchTls(server, tlsFiles, options.reloadIntervalMs, logger, metrics, {
      read,
      now,
      since: tlsStart.fingerprint,
    }),
  ];
  if (options.configFile && policyStart) {
    const file = options.configFile;
    watches.push(
      await watchFiles(
        [file],
        options.reloadIntervalMs,
        async (agreed) => {
          try {
            policy = await loadPolicyFile(file, agreed);
            options.onPolicy?.(policy);
            metrics.reloads.inc({ source: 'policy', result: 'success' });
            logger.info({ config: file }, 'reloaded policy');
          } catch (err) {
            metrics.reloads.inc({ source: 'policy', result: 'failure' });
            logger.error(
              { config: file, problems: describeError(err) },
              'refused invalid policy; keeping the last good one',
            );
          }
        },
        read,
        policyStart.fingerprint,
      ),
    );
  }
  logger.info({ host: options.host, port, mtls }, 'hookkeeper is serving');

  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    metrics,
    shutdown() {
      closing ??= new Promise<void>((resolve) => {
        shuttingDown = true;
        for (const w of watches) w.stop();
        // Every answer from here on closes its connection, so keep-alive clients reconnect to another replica.
        server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
          res.setHeader('connection', 'close');
        });
        const force = setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs);
        force.unref();
        // server.close() also closes idle keep-alive sockets (busy ones finish their request first), and with
        // them any request already sent on one but not yet read, which a SIGTERM under load would lose.
        // So while connections are open, keep reading for DRAIN_MS (readiness already fails) before closing.
        const close = (): void => {
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
        };
        server.getConnections((_err, open) => {
          if (open > 0) setTimeout(close, Math.min(DRAIN_MS, options.shutdownGraceMs));
          else close();
        });
      });
      return closing;
    },
  };
}
