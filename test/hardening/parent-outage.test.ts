// The API server unreachable while child CREATEs need their parent looked up, under load: every review is answered
// with the decision onMissingParent names, within the lookup budget, and none fails. Two outages: a port that
// refuses connections, and one that accepts them and never answers (the hang a budget exists for).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadKubeConfig } from '../../src/infrastructure/kube/client.js';
import { createParentContext, type ParentContext } from '../../src/infrastructure/kube/parent-context.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import { startServer, type RunningServer } from '../../src/transports/server/serve.js';
import { CHILD_USERS, launcherPod } from '../fixtures/children.js';
import { admissionReview } from '../fixtures/openshift.js';
import { keepAliveAgent, send, type Shot, type Target } from '../helpers/hardening-load.js';
import { makePki, type TestPki } from '../helpers/tls.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';

const BUDGET_MS = 300;
const WORKERS = 8;
const REVIEWS_PER_WORKER = 6;

const VM_POLICY_FILE = fileURLToPath(new URL('../fixtures/children-virtualmachine-policy.yaml', import.meta.url));

interface Outage {
  url: string;
  close(): Promise<void>;
}

/** Accepts connections and never says a word: no TLS handshake, no answer, until the client gives up. */
async function blackHole(): Promise<Outage> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A port that was just free: connecting is refused at once. */
async function refusing(): Promise<Outage> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return { url: `https://127.0.0.1:${port}`, close: async () => undefined };
}

function podCreate(uid: string): string {
  return JSON.stringify(
    admissionReview({
      uid,
      operation: 'CREATE',
      object: launcherPod(),
      user: CHILD_USERS.virtController,
      group: '',
      version: 'v1',
      kind: 'Pod',
      resource: 'pods',
    }),
  );
}

/**
 * The validating answer: denied with the lookup failure in the message (onMissingParent deny), or allowed with it in
 * a warning (warn; warnings are cut to 120 characters, so only their start is compared).
 */
function expectParentUnverified(uid: string, allowed: boolean, failure: string, detail: RegExp): Shot['check'] {
  const field = 'metadata.labels[vm.kubevirt.io/name]';
  const parent = 'parent VirtualMachine "testvm" in namespace "vms"';
  return (status, body) => {
    if (status !== 200) return `HTTP ${status}: ${body.slice(0, 200)}`;
    const response = (
      JSON.parse(body) as {
        response?: { uid?: string; allowed?: boolean; status?: { message?: string }; warnings?: string[] };
      }
    ).response;
    if (response?.uid !== uid) return `uid ${String(response?.uid)} instead of ${uid}`;
    if (response.allowed !== allowed) return `allowed: ${String(response.allowed)}, wanted ${String(allowed)}`;
    if (allowed) {
      const start = `child-parent: ${field}: ${failure}`;
      return response.warnings?.some((w) => w.startsWith(start))
        ? undefined
        : `no warning starting ${JSON.stringify(start)}: ${JSON.stringify(response.warnings)}`;
    }
    const message = response.status?.message ?? '';
    const prefix = `${field}: ${failure} ${parent}: `;
    const suffix = '; no owner reference was added (policy rule "virtualmachine-pods": onMissingParent deny)';
    const ok =
      message.startsWith(prefix) &&
      message.endsWith(suffix) &&
      detail.test(message.slice(prefix.length, -suffix.length));
    return ok ? undefined : `message ${JSON.stringify(message)}`;
  };
}

describe('API server unreachable during parent lookups, under load', { timeout: HANG_GUARD_MS }, () => {
  let dir = '';
  let pki: TestPki;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-parent-outage-'));
    pki = await makePki();
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(pki.dir, { recursive: true, force: true });
  });

  async function serveWithPolicy(
    policyText: string,
    apiServer: string,
  ): Promise<{ server: RunningServer; context: ParentContext }> {
    const kubeconfig = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'outage',
        clusters: [{ name: 'outage', cluster: { server: apiServer, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'hookkeeper', user: { token: 'hookkeeper-token' } }],
        contexts: [{ name: 'outage', context: { cluster: 'outage', user: 'hookkeeper' } }],
      }),
    );
    const policyFile = join(dir, `policy-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(policyFile, policyText);
    // The real lookup (client-node watch caches and GETs), as serve composes it.
    const context = createParentContext({
      loadKubeConfig: () => loadKubeConfig({ kubeconfig }),
      budgetMs: BUDGET_MS,
      syncGraceMs: 1000,
      logger: silentLogger(),
    });
    const server = await startServer(
      {
        host: '127.0.0.1',
        port: 0,
        devCertDir: '/nonexistent',
        reloadIntervalMs: 60_000,
        shutdownGraceMs: 2000,
        tlsCertFile: pki.certFile,
        tlsKeyFile: pki.keyFile,
        configFile: policyFile,
        onPolicy: (p) => context.setPolicy(p),
        gatherContext: (input) => context.gather(input),
        ready: () => context.ready(),
      },
      silentLogger(),
      createMetrics(),
    );
    return { server, context };
  }

  /** WORKERS keep-alive loops of REVIEWS_PER_WORKER child CREATEs each; every answer checked and timed. */
  async function load(
    target: Target,
    check: (uid: string) => Shot['check'],
  ): Promise<{ failures: string[]; slowestMs: number; answered: number }> {
    const agent = keepAliveAgent(target, WORKERS);
    const failures: string[] = [];
    let slowestMs = 0;
    let answered = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        for (let i = 0; i < REVIEWS_PER_WORKER; i++) {
          const uid = `outage-${w}-${i}`;
          const started = performance.now();
          const problem = await send(
            target,
            { path: '/validate?timeout=5s', body: podCreate(uid), check: check(uid) },
            { agent },
          );
          slowestMs = Math.max(slowestMs, performance.now() - started);
          answered++;
          if (problem !== undefined) failures.push(`${uid}: ${problem}`);
        }
      }),
    );
    agent.destroy();
    return { failures, slowestMs, answered };
  }

  const policies = async (): Promise<{ deny: string; warn: string }> => {
    const deny = await readFile(VM_POLICY_FILE, 'utf8');
    assert.match(deny, /onMissingParent: deny/);
    return { deny, warn: deny.replace('onMissingParent: deny', 'onMissingParent: warn') };
  };

  for (const [name, open, failure, detail] of [
    [
      'accepts connections and never answers',
      blackHole,
      'Timeout: lookup timed out for',
      new RegExp(`^no answer within ${BUDGET_MS} ms$`),
    ],
    ['refuses connections', refusing, 'Internal error: lookup failed for', /ECONNREFUSED/],
  ] as const) {
    // Every answer names the budget's own timeout (or the refusal): the budget, not the API server, ended each
    // lookup. How long reviews took is reported, never asserted (a loaded machine stretches any wall time).
    test(`an API server that ${name}: onMissingParent decides every review within the budget`, async (t) => {
      const { deny, warn } = await policies();
      const outage = await open();
      try {
        for (const [policy, allowed] of [
          [deny, false],
          [warn, true],
        ] as const) {
          const { server, context } = await serveWithPolicy(policy, outage.url);
          try {
            const result = await load({ port: server.port, ca: pki.ca.certPem }, (uid) =>
              expectParentUnverified(uid, allowed, failure, detail),
            );
            assert.deepEqual(result.failures, []);
            assert.equal(result.answered, WORKERS * REVIEWS_PER_WORKER);
            t.diagnostic(`slowest review: ${Math.round(result.slowestMs)} ms, budget ${BUDGET_MS} ms`);
          } finally {
            await server.shutdown();
            context.stop();
          }
        }
      } finally {
        await outage.close();
      }
    });
  }
});
