// `hookkeeper serve`: composes policy, TLS, logger and metrics into an HTTPS server, with hot reload of
// certificate and policy, optional mTLS, and a graceful drain on shutdown.
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import type { Policy } from '../../core/policy.js';
import type { Logger } from '../../infrastructure/log.js';
import { createApp } from './app.js';
import { drainOnce } from './drain.js';
import { createHttpsServer, listen } from './listener.js';
import { createMetrics, type Metrics } from './metrics.js';
import { loadStartPolicy, watchPolicy } from './policy-reload.js';
import type { ServeOptions } from './serve-options.js';
import { loadServingCert } from './serving-cert.js';
import { watchTls } from './tls.js';
import type { FileWatch } from './file-poll.js';

export type { ServeOptions } from './serve-options.js';

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
