// Child process for the load test: `serve` in process (so its heap can be measured), logging at the default
// level to /dev/null, run with --expose-gc. IPC: it sends {port} when serving; "heap" -> {heapUsed} after a full GC.
import { pino } from 'pino';
import { createLogger } from '../../src/infrastructure/log.js';
import { startServer } from '../../src/transports/server/serve.js';

const [certFile, keyFile] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (!certFile || !keyFile || !gc || !process.send)
  throw new Error('usage: node --expose-gc --import tsx hardening-gc-server.ts <cert> <key> (with an IPC channel)');

const logger = createLogger({ level: 'info', destination: pino.destination({ dest: '/dev/null', sync: true }) });
const server = await startServer(
  {
    host: '127.0.0.1',
    port: 0,
    devCertDir: '/nonexistent',
    tlsCertFile: certFile,
    tlsKeyFile: keyFile,
    reloadIntervalMs: 1_000,
    shutdownGraceMs: 2_000,
  },
  logger,
);

process.on('message', (message) => {
  if (message === 'heap') {
    // Twice: the first full GC can leave objects with finalizers (sockets, TLS contexts) for the second.
    gc();
    gc();
    process.send?.({ heapUsed: process.memoryUsage().heapUsed });
  } else if (message === 'stop') {
    void server.shutdown().then(() => process.exit(0));
  }
});
process.send({ port: server.port });
