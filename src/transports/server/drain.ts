// A graceful shutdown: stop watching files, tell keep-alive clients to reconnect elsewhere, finish what is in
// flight (up to the grace period), then close.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { FileWatch } from './file-poll.js';

/** After shutdown begins, how long requests still arriving on open connections are read and answered. */
const DRAIN_MS = 1_000;

/** The shutdown of `server`: the first call begins it (after `begin`, which fails readiness); every call gets its end. */
export function drainOnce(
  server: Server,
  watches: readonly FileWatch[],
  graceMs: number,
  begin: () => void,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= new Promise<void>((resolve) => {
      begin();
      for (const w of watches) w.stop();
      // Every answer from here on closes its connection, so keep-alive clients reconnect to another replica.
      server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
        res.setHeader('connection', 'close');
      });
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
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
        if (open > 0) setTimeout(close, Math.min(DRAIN_MS, graceMs));
        else close();
      });
    }));
}
