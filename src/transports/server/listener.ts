// The HTTPS server around the request listener: its timeouts, optional mTLS with a common-name allow-list, and
// listening on the configured address.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../../infrastructure/log.js';
import type { RequestListener } from './app-deps.js';
import type { ServeOptions } from './serve-options.js';
import type { LoadedTls } from './tls.js';

export function createHttpsServer(options: ServeOptions, tls: LoadedTls, app: RequestListener, logger: Logger): Server {
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
  if (mtls && allowedNames.length > 0) onlyCommonNames(server, allowedNames, logger);
  server.on('tlsClientError', (err) => logger.debug({ err }, 'TLS handshake failed'));
  return server;
}

/** Drops a connection whose client certificate's subject CN is not listed (the CA alone admits any it signed). */
function onlyCommonNames(server: Server, allowedNames: readonly string[], logger: Logger): void {
  server.on('secureConnection', (socket: TLSSocket) => {
    const cn = socket.getPeerCertificate().subject?.CN;
    const name = Array.isArray(cn) ? cn[0] : cn;
    if (!name || !allowedNames.includes(name)) {
      logger.warn({ cn: name }, 'rejected client certificate: common name not allowed');
      socket.destroy();
    }
  });
}

/** Listens; resolves with the bound port (the one asked for, or the one chosen for port 0). */
export async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
