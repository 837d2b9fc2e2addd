// `hookkeeper serve`: composes policy, TLS, logger and metrics into an HTTPS server, with hot reload of
// certificate and policy, optional mTLS, and a graceful drain on shutdown.
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import type { Policy } from '../core/policy.js';
import type { ReviewContext, ReviewInput } from '../core/types.js';
import type { Logger } from '../log.js';
import { createApp } from './app.js';
import { drainOnce } from './drain.js';
import { createHttpsServer, listen } from './listener.js';
import { createMetrics, type Metrics } from './metrics.js';
import { loadStartPolicy, watchPolicy } from './policy-reload.js';
import { loadServingCert } from './serving-cert.js';
import { watchTls } from './tls.js';
import type { FileWatch, ReadFile } from './watch.js';

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

export async function startServer(
  options: ServeOptions,
  logger: Logger,
  metrics: Metrics = createMetrics({ defaultMetrics: true }),
): Promise<RunningServer> {
  const read = options.readFile ?? readFile;
  const start = await loadStartPolicy(options.configFile, read, logger);
  let policy = start.policy;
  options.onPolicy?.(policy);
  const now = options.now ?? (() => new Date());
  const cert = await loadServingCert(options, read, now, logger, metrics);

  let shuttingDown = false;
  const app = createApp({
    policy: () => policy,
    logger,
    metrics,
    ready: () => !shuttingDown && (options.ready?.() ?? true),
    ...(options.gatherContext ? { gatherContext: options.gatherContext } : {}),
  });
  const server = createHttpsServer(options, cert.loaded, app, logger);
  const port = await listen(server, options.port, options.host);

  const watches: FileWatch[] = [
    await watchTls(server, cert.files, options.reloadIntervalMs, logger, metrics, {
      read,
      now,
      since: cert.fingerprint,
    }),
  ];
  if (options.configFile && start.fingerprint !== undefined) {
    const swap = (next: Policy): void => {
      policy = next;
      options.onPolicy?.(next);
    };
    const interval = options.reloadIntervalMs;
    watches.push(await watchPolicy(options.configFile, interval, read, start.fingerprint, swap, logger, metrics));
  }
  logger.info({ host: options.host, port, mtls: options.clientCaFile !== undefined }, 'hookkeeper is serving');

  const shutdown = drainOnce(server, watches, options.shutdownGraceMs, () => {
    shuttingDown = true;
  });
  return { server, port, metrics, shutdown };
}
