// A stand-in for the kube-apiserver's list and get endpoints (plain HTTP on 127.0.0.1), enough for the real
// lister and `hookkeeper audit` to page (limit/continue), hit 404s for missing CRDs, be refused (401/403), find a
// continue token expired (410), and get gzip when it asks.
// The end-to-end suite replaces it with a real API server. client-node only speaks plain HTTP to a cluster marked
// insecure-skip-tls-verify, which the kubeconfig written here is.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { after, before, beforeEach } from 'node:test';
import type { KubeObject } from '../../src/core/types.js';

export interface FakeApiServer {
  url: string;
  /** Every request path with its query, in order. */
  requests: string[];
  /** Objects by "group/version/plural"; a resource absent here answers 404, as without its CRD. */
  objects: Map<string, KubeObject[]>;
  /** Service accounts that exist, as "namespace/name". */
  serviceAccounts: Set<string>;
  /** Forces a status for every request (401, 403). */
  refuse?: { code: number; message: string };
  /** The Authorization header of every request, in order. */
  authorizations: Array<string | undefined>;
  /** TCP connections accepted so far. */
  connections: number;
  /** Of those, the ones closed since. */
  closedConnections: number;
  /**
   * Continue tokens that have expired: 410 Expired, with the token the real API server offers to continue from the
   * current state (the value here), or none (undefined).
   */
  expired: Map<string, string | undefined>;
  /** Holds every list answer this long (ms), so a test can see what the client asks for meanwhile. */
  listDelayMs: number;
  kubeconfig(dir: string): Promise<string>;
  close(): Promise<void>;
}

function status(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

export async function startFakeApiServer(): Promise<FakeApiServer> {
  const fake: Omit<FakeApiServer, 'url' | 'kubeconfig' | 'close'> = {
    requests: [],
    objects: new Map(),
    serviceAccounts: new Set(),
    authorizations: [],
    connections: 0,
    closedConnections: 0,
    expired: new Map(),
    listDelayMs: 0,
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    fake.requests.push(`${url.pathname}${url.search}`);
    fake.authorizations.push(req.headers.authorization);
    const send = (code: number, body: string): void => {
      // As the API server does (for large enough bodies), only when asked.
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      res.writeHead(code, { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      res.end(gzip ? gzipSync(body) : body);
    };
    if (fake.refuse)
      return send(
        fake.refuse.code,
        status(fake.refuse.code, fake.refuse.code === 401 ? 'Unauthorized' : 'Forbidden', fake.refuse.message),
      );
    const sa = /^\/api\/v1\/namespaces\/([^/]+)\/serviceaccounts\/([^/]+)$/.exec(url.pathname);
    if (sa) {
      const id = `${sa[1]}/${sa[2]}`;
      return fake.serviceAccounts.has(id)
        ? send(
            200,
            JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: sa[1], name: sa[2] } }),
          )
        : send(404, status(404, 'NotFound', `serviceaccounts "${sa[2]}" not found`));
    }
    const list = /^\/apis\/([^/]+)\/([^/]+)\/(?:namespaces\/([^/]+)\/)?([^/]+)$/.exec(url.pathname);
    const all = list ? fake.objects.get(`${list[1]}/${list[2]}/${list[4]}`) : undefined;
    if (!list || !all) return send(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const token = url.searchParams.get('continue') ?? undefined;
    if (token !== undefined && fake.expired.has(token)) {
      const fresh = fake.expired.get(token);
      const expired = JSON.parse(
        status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.'),
      ) as Record<string, unknown>;
      return send(410, JSON.stringify({ ...expired, metadata: fresh === undefined ? {} : { continue: fresh } }));
    }
    const namespace = list[3];
    const items = namespace
      ? all.filter((o) => (o['metadata'] as { namespace?: string }).namespace === namespace)
      : all;
    const limit = Number(url.searchParams.get('limit') ?? items.length) || items.length;
    // Tokens are offsets into the list; "fresh-N" is an expired token's replacement.
    const start = Number((token ?? '0').replace(/^fresh-/, ''));
    const page = items.slice(start, start + limit);
    const next = start + limit < items.length ? String(start + limit) : undefined;
    const kind = page[0]?.['kind'];
    const body = JSON.stringify({
      apiVersion: `${list[1]}/${list[2]}`,
      kind: `${typeof kind === 'string' ? kind : 'Object'}List`,
      metadata: { resourceVersion: '1000', ...(next ? { continue: next } : {}) },
      items: page,
    });
    if (fake.listDelayMs > 0) setTimeout(() => send(200, body), fake.listDelayMs);
    else send(200, body);
  });
  server.on('connection', (socket) => {
    fake.connections++;
    socket.on('close', () => fake.closedConnections++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(fake, {
    url,
    async kubeconfig(dir: string): Promise<string> {
      const file = join(dir, 'kubeconfig');
      await writeFile(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'current-context: fake',
          'clusters:',
          `- name: fake`,
          `  cluster: {server: "${url}", insecure-skip-tls-verify: true}`,
          'users:',
          '- name: auditor',
          '  user: {token: audit-token}',
          'contexts:',
          '- name: fake',
          '  context: {cluster: fake, user: auditor}',
          '- name: elsewhere',
          '  context: {cluster: nowhere, user: auditor}',
        ].join('\n'),
      );
      return file;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

export interface FakeApiServerFixture {
  readonly api: FakeApiServer;
  /** A temporary directory holding the kubeconfig, for the test's other files too. */
  readonly dir: string;
  readonly kubeconfig: string;
}

/** Starts a fake API server and its kubeconfig for the enclosing suite; each test starts with no requests seen and nothing refused. */
export function useFakeApiServer(prefix: string): FakeApiServerFixture {
  const fixture = {} as { api: FakeApiServer; dir: string; kubeconfig: string };
  before(async () => {
    fixture.api = await startFakeApiServer();
    fixture.dir = await mkdtemp(join(tmpdir(), prefix));
    fixture.kubeconfig = await fixture.api.kubeconfig(fixture.dir);
  });
  after(async () => {
    await fixture.api.close();
    await rm(fixture.dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    fixture.api.requests.length = 0;
    fixture.api.authorizations.length = 0;
    fixture.api.expired.clear();
    fixture.api.listDelayMs = 0;
    delete fixture.api.refuse;
  });
  return fixture;
}
