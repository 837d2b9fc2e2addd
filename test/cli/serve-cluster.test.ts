// Which cluster `hookkeeper serve` consults, and --no-cluster: the start logs the source and why (flag, KUBECONFIG,
// the default file, in-cluster, or none); a stale ~/.kube/config does not decide the README quick start, because
// `npm start` runs without a cluster and so answers as `review` does.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { cli } from '../helpers/cli.js';
import { docSection } from '../helpers/docs.js';
import { httpsRequest } from '../helpers/tls.js';
import { HANG_GUARD_MS } from '../helpers/wait.js';

const MAIN = fileURLToPath(new URL('../../src/transports/cli/main.ts', import.meta.url));
const root = packageRoot();

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGTERM');
});

type LogEntry = Record<string, unknown> & { msg?: string };

/** Starts serve with only `env` (and PATH); resolves with its port and the log lines up to "hookkeeper is serving". */
function start(args: string[], env: Record<string, string>): Promise<{ port: number; logs: LogEntry[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const logs: LogEntry[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${JSON.stringify(logs)}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as LogEntry;
      logs.push(entry);
      if (entry.msg === 'hookkeeper is serving' && typeof entry['port'] === 'number')
        resolve({ port: entry['port'], logs });
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

/** A HOME whose ~/.kube/config names a cluster that is gone (a laptop's leftover), context "old-lab". */
async function staleHome(): Promise<{ home: string; server: string }> {
  const home = await mkdtemp(join(tmpdir(), 'hookkeeper-stale-home-'));
  const server = `https://127.0.0.1:${await closedPort()}`;
  await mkdir(join(home, '.kube'));
  await writeFile(
    join(home, '.kube', 'config'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'lab', cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'me', user: { token: 't' } }],
      contexts: [{ name: 'old-lab', context: { cluster: 'lab', user: 'me' } }],
      'current-context': 'old-lab',
    }),
  );
  return { home, server };
}

/** `npm start`'s arguments to the hookkeeper command, as package.json gives them. */
async function npmStartArgs(): Promise<string[]> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const m = /^node bin\/hookkeeper\.js (.*)$/.exec(pkg.scripts['start'] ?? '');
  assert.ok(m, `npm start runs bin/hookkeeper.js: ${pkg.scripts['start']}`);
  return (m[1] ?? '').split(' ');
}

interface Review {
  response: { uid: string; allowed: boolean; status?: { code?: number; reason?: string; message?: string } };
}

describe('serve: the cluster it consults', { timeout: HANG_GUARD_MS }, () => {
  test("the README quick start: npm start answers the README's curl as written, whatever ~/.kube/config holds", async () => {
    const { home } = await staleHome();
    const certs = join(home, 'dev-certs');
    const { port, logs } = await start([...(await npmStartArgs()), '--port', '0', '--dev-cert-dir', certs], {
      HOME: home,
    });
    assert.ok(
      logs.some((l) => l['cluster'] === 'none' && l['reason'] === '--no-cluster'),
      `the start says no cluster is consulted: ${JSON.stringify(logs)}`,
    );
    const ca = await readFile(join(certs, 'ca.crt'), 'utf8');
    const quickStart = docSection('README.md', '## Quick start');
    assert.match(quickStart, /\$ curl --cacert \.dev-certs\/ca\.crt https:\/\/127\.0\.0\.1:8443\/readyz\nok\n/);
    assert.equal((await httpsRequest({ port, path: '/readyz', ca })).body.trim(), 'ok');
    const body = await readFile(join(root, 'test', 'fixtures', 'review-remove-etcd-hook.json'), 'utf8');
    const res = await httpsRequest({ port, path: '/validate', method: 'POST', body, ca });
    const { response } = JSON.parse(res.body) as Review;
    const shown = JSON.stringify({
      uid: response.uid,
      allowed: response.allowed,
      code: response.status?.code,
      reason: response.status?.reason,
    });
    assert.ok(quickStart.includes(`\n${shown}\n`), `the README shows ${shown}`);
    // "`.response.status.message` is the denial above": the README's opening block, unwrapped.
    const denial = /When `alice`[\s\S]*?```\n([\s\S]*?)\n```/.exec(await readFile(join(root, 'README.md'), 'utf8'));
    assert.equal(response.status?.message, denial?.[1]?.split('\n').join(' '));
  });

  test('a stale ~/.kube/config: the start names it, why it is the one, its context and server', async () => {
    const { home, server } = await staleHome();
    const pki = join(home, 'dev-certs');
    const { logs } = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--dev-cert-dir', pki], {
      HOME: home,
    });
    const line = logs.find((l) => l['source'] !== undefined);
    assert.ok(line, JSON.stringify(logs));
    assert.equal(line['level'], 30, 'info');
    assert.equal(line['cluster'], server);
    assert.equal(line['context'], 'old-lab');
    assert.equal(
      line['source'],
      `${join(home, '.kube', 'config')} (the default kubeconfig: no --kubeconfig, KUBECONFIG not set)`,
    );
  });

  test('no cluster anywhere: the start says so and where it looked', async () => {
    const home = await mkdtemp(join(tmpdir(), 'hookkeeper-home-'));
    const { logs } = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--dev-cert-dir', join(home, 'c')], {
      HOME: home,
    });
    const line = logs.find((l) => l['cluster'] === 'none');
    assert.ok(line, JSON.stringify(logs));
    assert.equal(line['level'], 30, 'info');
    assert.match(String(line['reason']), /^no kubeconfig: no --kubeconfig, KUBECONFIG is not set, no .*\.kube\/config/);
  });

  test('no cluster: a Machine CREATE in a migration namespace is not refused for a twin it cannot look up', async () => {
    const home = await mkdtemp(join(tmpdir(), 'hookkeeper-home-'));
    const certs = join(home, 'c');
    const { port } = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--dev-cert-dir', certs], {
      HOME: home,
    });
    const machine = {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: { name: 'worker-9', namespace: 'openshift-machine-api' },
      spec: {},
    };
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'twin-create',
        kind: { group: 'machine.openshift.io', version: 'v1beta1', kind: 'Machine' },
        resource: { group: 'machine.openshift.io', version: 'v1beta1', resource: 'machines' },
        namespace: 'openshift-machine-api',
        name: 'worker-9',
        operation: 'CREATE',
        userInfo: { username: 'alice', groups: ['system:authenticated'] },
        object: machine,
        oldObject: null,
        dryRun: false,
      },
    });
    const ca = await readFile(join(certs, 'ca.crt'), 'utf8');
    const res = await httpsRequest({ port, path: '/validate', method: 'POST', body, ca });
    const { response } = JSON.parse(res.body) as Review;
    assert.equal(response.allowed, true, JSON.stringify(response));
  });

  test('bad combinations and a context that does not exist stop the start with exit 2', async () => {
    const { home } = await staleHome();
    const kubeconfig = join(home, '.kube', 'config');
    const cases: Array<[string[], RegExp]> = [
      [
        ['--no-cluster', '--kubeconfig', kubeconfig],
        /--no-cluster: cannot go with --kubeconfig or --context; give one or the other/,
      ],
      [
        ['--no-cluster', '--audit-interval', '10m'],
        /--audit-interval: audits a cluster: it cannot go with --no-cluster; /,
      ],
      [['--kubeconfig', kubeconfig, '--context', 'prod'], /--context prod: no such context \(have: old-lab\)/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(['serve', '--log-level', 'silent', '--port', '0', ...args], { env: { HOME: home } });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
    }
  });
});
