// Free loopback ports: bind to port 0, read the port, release it. Another process may take the port before our
// child binds it, so starters retry once when a child reports the port in use.
import { createServer, type Server } from 'node:net';

export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    // All held open together, so the ports are distinct.
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((s) => {
      const address = s.address();
      if (address === null || typeof address === 'string') throw new Error('no port bound');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** What etcd, kube-apiserver (Go) and node print when they cannot bind. */
export function mentionsPortInUse(log: string): boolean {
  return /address already in use|EADDRINUSE/.test(log);
}

export class PortInUse extends Error {}

/** Runs start(ports); if it fails with PortInUse, once more with new ports. */
export async function withFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>): Promise<T> {
  try {
    return await start(await freePorts(count));
  } catch (err) {
    if (!(err instanceof PortInUse)) throw err;
    return start(await freePorts(count));
  }
}
