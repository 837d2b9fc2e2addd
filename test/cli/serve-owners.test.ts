// `hookkeeper serve` as a real process and hook owners through RBAC: without any kubeconfig (a laptop) the registry
// decides alone (an unregistered owner's hook goes with a warning, nothing "could not be checked"); with a
// kubeconfig whose API server does not answer, readiness waits for the RBAC index and nothing is allowed as unprotected.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { admissionReview, ETCD, machine } from '../fixtures/openshift.js';
import { httpsRequest, makePki, type TestPki } from '../helpers/tls.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';

const MAIN = fileURLToPath(new URL('../../src/transports/cli/main.ts', import.meta.url));
const BACKUP = { name: 'BackupFileSystem', owner: 'my-backup-controller' };

const removal = JSON.stringify(
  admissionReview({
    operation: 'UPDATE',
    object: machine({ preDrain: [ETCD], resourceVersion: '48300' }),
    oldObject: machine({ preDrain: [ETCD, BACKUP] }),
    user: { username: 'bob', groups: ['system:authenticated'] },
  }),
);

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGTERM');
});

/** Starts serve with a HOME that has no ~/.kube and no cluster in the environment; resolves with its port. */
function start(pki: TestPki, home: string, extra: string[] = []): Promise<number> {
  const env: Record<string, string | undefined> = { ...process.env, HOME: home };
  for (const k of ['HOOKKEEPER_LOG_LEVEL', 'HOOKKEEPER_CONFIG', 'KUBECONFIG', 'KUBERNETES_SERVICE_HOST']) delete env[k];
  const args = ['--import', 'tsx', MAIN, 'serve', '--host', '127.0.0.1', '--port', '0'];
  args.push('--tls-cert', pki.certFile, '--tls-key', pki.keyFile, ...extra);
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'hookkeeper is serving' && entry.port) resolve(entry.port);
    });
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  assert.ok(address && typeof address === 'object');
  return address.port;
}

interface Review {
  response: { allowed: boolean; warnings?: string[]; status?: { message?: string } };
}

describe('serve: hook owners through RBAC', { timeout: HANG_GUARD_MS }, () => {
  test('no kubeconfig at all: ready, and the registry decides (warned, not "could not be checked")', async () => {
    const pki = await makePki();
    const port = await start(pki, await mkdtemp(join(tmpdir(), 'hookkeeper-home-')));
    const ready = await httpsRequest({ port, path: '/readyz', ca: pki.ca.certPem });
    assert.equal(ready.status, 200);
    const res = await httpsRequest({ port, path: '/validate', method: 'POST', body: removal, ca: pki.ca.certPem });
    const review = JSON.parse(res.body) as Review;
    assert.equal(review.response.allowed, true, res.body);
    assert.deepEqual(review.response.warnings, [
      'unverified: hook BackupFileSystem of my-backup-controller; grant remove on hookowners/my-backup-controller; by bob',
    ]);
  });

  test('a kubeconfig whose API server does not answer: not ready while RBAC is unlisted; removals could not be checked', async () => {
    const pki = await makePki();
    const home = await mkdtemp(join(tmpdir(), 'hookkeeper-home-'));
    const kubeconfig = join(home, 'kubeconfig');
    const server = `https://127.0.0.1:${await closedPort()}`;
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const port = await start(pki, home, ['--kubeconfig', kubeconfig, '--lookup-budget', '300']);
    const ready = await httpsRequest({ port, path: '/readyz', ca: pki.ca.certPem });
    assert.equal(ready.status, 503, 'the RBAC index has not listed');
    const res = await httpsRequest({ port, path: '/validate', method: 'POST', body: removal, ca: pki.ca.certPem });
    const review = JSON.parse(res.body) as Review;
    assert.equal(review.response.allowed, false, res.body);
    assert.match(
      review.response.status?.message ?? '',
      /whether an RBAC grant protects it \(hookkeeper has not listed the cluster's RBAC\) or lets "bob" act for it could not be checked, so the removal is not allowed/,
    );
    assert.equal(review.response.status?.message?.match(/could not be checked/g)?.length, 1);
  });
});
