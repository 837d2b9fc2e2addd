// connect(): the kubeconfigs it reads itself (token, token file, client certificates, CA, kubectl's defaults) give
// the same cluster and credentials client-node would, with the same usage errors; every other kind goes through
// client-node. A real TLS round trip checks that the kept-alive connections carry the kubeconfig's certificates.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { connect, serviceAccountLookup, type ConnectOptions } from '../../src/infrastructure/kube/connect.js';
import { loadKubeConfig } from '../../src/infrastructure/kube/client.js';
import { createLister } from '../../src/infrastructure/kube/lister.js';
import type { ResourceRef } from '../../src/core/resources.js';
import { useFakeApiServer } from '../audit/fake-apiserver.js';
import { machine } from '../fixtures/openshift.js';
import { makePki, type TestPki } from '../helpers/tls.js';

const MACHINES: ResourceRef = {
  group: 'machine.openshift.io',
  version: 'v1beta1',
  plural: 'machines',
  namespaced: true,
};

interface Kubeconfig {
  cluster: Record<string, unknown>;
  user: Record<string, unknown>;
  extraContexts?: Array<{ name: string; context: Record<string, unknown> }>;
  currentContext?: string;
}

function kubeconfigText(k: Kubeconfig): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': k.currentContext ?? 'main',
    clusters: [{ name: 'c', cluster: k.cluster }],
    users: [{ name: 'u', user: k.user }],
    contexts: [
      { name: 'main', context: { cluster: 'c', user: 'u', namespace: 'ignored' } },
      ...(k.extraContexts ?? []),
    ],
  });
}

const usageError =
  (message: string | RegExp) =>
  (err: unknown): boolean =>
    err instanceof AppError &&
    err.code === 'USAGE' &&
    (typeof message === 'string' ? err.message === message : message.test(err.message));

describe('connect: kubeconfigs read without client-node', () => {
  const fake = useFakeApiServer('hookkeeper-access-');
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-access-files-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('a token: lists and service-account lookups through it, with client-node nowhere in the request', async () => {
    fake.api.objects.set('machine.openshift.io/v1beta1/machines', [machine({ name: 'a' }), machine({ name: 'b' })]);
    fake.api.serviceAccounts.add('ns/sa');
    const access = await connect({ kubeconfig: fake.kubeconfig, env: {} });
    assert.equal(access.server, fake.api.url);
    assert.deepEqual([access.proxied, access.compress], [false, true]);
    // client-node's applyToHTTPSOptions always makes an agent; this reader never does.
    assert.deepEqual(await access.requestOptions(), {
      rejectUnauthorized: false,
      headers: { Authorization: 'Bearer audit-token' },
    });
    let n = 0;
    for await (const page of createLister(access).list(MACHINES)) n += page.length;
    assert.equal(n, 2);
    const exists = serviceAccountLookup(access);
    assert.deepEqual([await exists('ns', 'sa'), await exists('ns', 'gone')], [true, false]);
    assert.deepEqual(new Set(fake.api.authorizations), new Set(['Bearer audit-token']));
    fake.api.refuse = { code: 403, message: 'serviceaccounts "x" is forbidden' };
    await assert.rejects(
      exists('ns', 'x'),
      /cannot read service account ns\/x: forbidden \(403\): serviceaccounts "x" is forbidden/,
    );
  });

  test('certificate files relative to the kubeconfig or inline data, tls-server-name, disable-compression', async () => {
    const sub = join(dir, 'certs-case');
    await mkdir(join(sub, 'pki'), { recursive: true });
    await writeFile(join(sub, 'pki', 'ca.crt'), 'CA PEM');
    await writeFile(join(sub, 'pki', 'client.key'), 'KEY PEM');
    const file = join(sub, 'config');
    await writeFile(
      file,
      kubeconfigText({
        cluster: {
          server: 'https://api.example:6443/',
          'certificate-authority': 'pki/ca.crt',
          'tls-server-name': 'api.internal',
          'disable-compression': true,
        },
        user: { 'client-certificate-data': Buffer.from('CERT PEM').toString('base64'), 'client-key': 'pki/client.key' },
      }),
    );
    const access = await connect({ kubeconfig: file, env: {} });
    assert.deepEqual([access.server, access.compress], ['https://api.example:6443', false]);
    const options = await access.requestOptions();
    assert.deepEqual(
      [
        String(options.ca),
        String(options.cert),
        String(options.key as string | Buffer),
        options.servername,
        options.rejectUnauthorized,
        options.headers,
      ],
      ['CA PEM', 'CERT PEM', 'KEY PEM', 'api.internal', undefined, {}],
    );
  });

  test('a token file is read for every request: projected tokens rotate', async () => {
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'first\n');
    const file = join(dir, 'token-file-config');
    await writeFile(file, kubeconfigText({ cluster: { server: 'https://api.example:6443' }, user: { tokenFile } }));
    const access = await connect({ kubeconfig: file, env: {} });
    assert.deepEqual((await access.requestOptions()).headers, { Authorization: 'Bearer first' });
    await writeFile(tokenFile, 'second');
    assert.deepEqual((await access.requestOptions()).headers, { Authorization: 'Bearer second' });
  });

  test("--context and bad files: the same usage errors, word for word, as client-node's loader", async () => {
    assert.equal((await connect({ kubeconfig: fake.kubeconfig, context: 'fake', env: {} })).server, fake.api.url);
    const broken = join(dir, 'broken');
    await writeFile(broken, 'clusters: [unclosed');
    const cases: Array<Omit<ConnectOptions, 'env'>> = [
      { kubeconfig: fake.kubeconfig, context: 'nope' },
      { kubeconfig: fake.kubeconfig, context: 'elsewhere' },
      { kubeconfig: join(dir, 'missing') },
    ];
    for (const c of cases) {
      let expected = '';
      try {
        loadKubeConfig(c);
      } catch (err) {
        expected = (err as Error).message;
      }
      assert.notEqual(expected, '', JSON.stringify(c));
      await assert.rejects(connect({ ...c, env: {} }), usageError(expected), JSON.stringify(c));
    }
    await assert.rejects(connect({ kubeconfig: broken, env: {} }), usageError(/^cannot load kubeconfig .*broken: /));
  });

  test("YAML read as kubectl reads a kubeconfig: YAML 1.1's booleans (yes, on), merge keys", async () => {
    // kubectl (sigs.k8s.io/yaml over go-yaml v2) reads `yes` and `on` as true: TLS verification skipped, compression off.
    const file = join(dir, 'yaml11');
    await writeFile(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: main',
        'x-tls: &tls {insecure-skip-tls-verify: yes}',
        'clusters:',
        '- name: c',
        '  cluster:',
        '    <<: *tls',
        '    server: https://127.0.0.1:6443',
        '    disable-compression: on',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: main, context: {cluster: c, user: u}}]',
        '',
      ].join('\n'),
    );
    const access = await connect({ kubeconfig: file, env: {} });
    assert.deepEqual([access.server, access.compress], ['https://127.0.0.1:6443', false]);
    assert.deepEqual(await access.requestOptions(), {
      rejectUnauthorized: false,
      headers: { Authorization: 'Bearer t' },
    });
  });

  test("kubectl's defaults: $KUBECONFIG when it names one file, else $HOME/.kube/config", async () => {
    assert.equal((await connect({ env: { KUBECONFIG: fake.kubeconfig, HOME: '/nonexistent' } })).server, fake.api.url);
    const home = join(dir, 'home');
    await mkdir(join(home, '.kube'), { recursive: true });
    await writeFile(join(home, '.kube', 'config'), await readFile(fake.kubeconfig));
    assert.equal((await connect({ env: { HOME: home } })).server, fake.api.url);
  });
});

describe('connect: everything else through client-node', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookkeeper-access-fallback-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('an exec plugin runs as client-node runs it', async () => {
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'from-exec' },
    });
    const file = join(dir, 'exec');
    await writeFile(
      file,
      kubeconfigText({
        cluster: { server: 'https://api.example:6443' },
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: 'sh',
            args: ['-c', `echo '${credential}'`],
            interactiveMode: 'Never',
          },
        },
      }),
    );
    const access = await connect({ kubeconfig: file, env: {} });
    assert.deepEqual((await access.requestOptions()).headers, { Authorization: 'Bearer from-exec' });
  });

  test("a proxy-url: the proxy's agent is used as it is", async () => {
    const file = join(dir, 'proxy');
    await writeFile(
      file,
      kubeconfigText({
        cluster: { server: 'https://api.example:6443', 'proxy-url': 'http://proxy.example:3128' },
        user: { token: 't' },
      }),
    );
    const access = await connect({ kubeconfig: file, env: {} });
    assert.equal(access.proxied, true);
    assert.ok((await access.requestOptions()).agent);
  });

  test('$KUBECONFIG naming several files: merged as kubectl merges them', async () => {
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    await writeFile(
      first,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'main',
        contexts: [{ name: 'main', context: { cluster: 'c', user: 'u' } }],
      }),
    );
    await writeFile(
      second,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://merged.example:6443' } }],
        users: [{ name: 'u', user: { token: 't' } }],
      }),
    );
    // client-node reads the environment itself.
    const saved = process.env['KUBECONFIG'];
    process.env['KUBECONFIG'] = `${first}:${second}`;
    try {
      assert.equal(
        (await connect({ env: { KUBECONFIG: `${first}:${second}` } })).server,
        'https://merged.example:6443',
      );
    } finally {
      if (saved === undefined) delete process.env['KUBECONFIG'];
      else process.env['KUBECONFIG'] = saved;
    }
  });
});

describe('connect: a real TLS round trip', () => {
  let pki: TestPki;
  let server: Server;
  let port = 0;
  const seen: Array<{ authorization: string | undefined; clientCert: boolean; socket: unknown }> = [];
  before(async () => {
    pki = await makePki();
    server = createServer(
      {
        cert: await readFile(pki.certFile),
        key: await readFile(pki.keyFile),
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        seen.push({
          authorization: req.headers.authorization,
          clientCert: Object.keys(socket.getPeerCertificate()).length > 0,
          socket,
        });
        const url = new URL(req.url ?? '/', 'https://x');
        const offset = Number(url.searchParams.get('continue') ?? '0');
        const next = offset + 1 < 3 ? String(offset + 1) : undefined;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'MachineList',
            metadata: next ? { continue: next } : {},
            items: [machine({ name: `m-${offset}` })],
          }),
        );
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await rm(pki.dir, { recursive: true, force: true });
  });

  test('the CA verifies the server, the client certificate is presented, one connection serves every page', async () => {
    const file = join(pki.dir, 'kubeconfig');
    await writeFile(
      file,
      kubeconfigText({
        cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority': 'ca.crt' },
        user: { 'client-certificate': 'tls.crt', 'client-key': 'tls.key', token: 'tls-token' },
      }),
    );
    const names: string[] = [];
    for await (const page of createLister(await connect({ kubeconfig: file, env: {} }), { pageSize: 1 }).list(
      MACHINES,
    )) {
      names.push(...page.map((m) => (m['metadata'] as { name: string }).name));
    }
    assert.deepEqual(names, ['m-0', 'm-1', 'm-2']);
    assert.deepEqual(
      seen.map((s) => [s.authorization, s.clientCert]),
      [
        ['Bearer tls-token', true],
        ['Bearer tls-token', true],
        ['Bearer tls-token', true],
      ],
    );
    assert.equal(new Set(seen.map((s) => s.socket)).size, 1);
    // And a server the CA did not sign is refused.
    const other = await makePki('another-ca');
    try {
      await writeFile(
        file,
        kubeconfigText({
          cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority': other.caFile },
          user: { token: 't' },
        }),
      );
      const pages = createLister(await connect({ kubeconfig: file, env: {} })).list(MACHINES);
      await assert.rejects(
        async () => {
          for await (const p of pages) assert.ok(p);
        },
        (err: unknown) =>
          err instanceof AppError &&
          err.code === 'CLUSTER' &&
          /cannot reach the API server at .*: .*(certificate|self.signed)/i.test(err.message),
      );
    } finally {
      await rm(other.dir, { recursive: true, force: true });
    }
  });
});
