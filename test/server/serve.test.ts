// `serve` over real TLS: round trip, TLS floor, certificate and policy hot reload, mTLS, graceful drain.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
} from '../../src/infrastructure/certs/pki.js';
import { AppError } from '../../src/errors.js';
import { silentLogger } from '../../src/infrastructure/log.js';
import { createMetrics } from '../../src/transports/server/metrics.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/transports/server/serve.js';
import { admissionReview, ETCD, machine, USERS } from '../fixtures/openshift.js';
import { MountedPair } from '../helpers/mounted-pair.js';
import { httpsRequest, makePki, replaceFile } from '../helpers/tls.js';
import { eventually } from '../helpers/wait.js';

const running: RunningServer[] = [];
after(async () => {
  await Promise.all(running.map((s) => s.shutdown()));
});

async function start(options: Partial<ServeOptions>): Promise<RunningServer> {
  const s = await startServer(
    { host: '127.0.0.1', port: 0, devCertDir: '/nonexistent', reloadIntervalMs: 50, shutdownGraceMs: 2000, ...options },
    silentLogger(),
    createMetrics(),
  );
  running.push(s);
  return s;
}

const DAY = 86_400_000;

const removeEtcd = JSON.stringify(
  admissionReview({
    uid: 'uid-tls',
    operation: 'UPDATE',
    object: machine({ preDrain: [] }),
    oldObject: machine({ preDrain: [ETCD] }),
    user: USERS.alice,
  }),
);

describe('serve over TLS', () => {
  test('a round trip through real TLS, verified against the CA', async () => {
    const pki = await makePki();
    const s = await start({ tlsCertFile: pki.certFile, tlsKeyFile: pki.keyFile });
    const res = await httpsRequest({
      port: s.port,
      path: '/validate?timeout=10s',
      method: 'POST',
      body: removeEtcd,
      ca: pki.ca.certPem,
    });
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).response.allowed, false);
    assert.equal((await httpsRequest({ port: s.port, path: '/readyz', ca: pki.ca.certPem })).body, 'ok');
  });

  test("TLS below 1.2 is refused by the server's own minimum version", async () => {
    const pki = await makePki();
    // OpenSSL 3 refuses TLS 1.0/1.1 below security level 0 on both sides by default, which would make this test
    // pass whatever hookkeeper sets: the client offers only TLS 1.0/1.1 at level 0, and a control server that allows
    // them shows the client really can connect with TLS 1.1 here.
    const old = {
      ca: pki.ca.certPem,
      minVersion: 'TLSv1',
      maxVersion: 'TLSv1.1',
      ciphers: 'DEFAULT@SECLEVEL=0',
    } as const;
    const control = createHttpsServer(
      {
        cert: await readFile(pki.certFile),
        key: await readFile(pki.keyFile),
        minVersion: 'TLSv1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      },
      (_req, res) => res.end('ok'),
    );
    await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
    try {
      const res = await httpsRequest({ port: (control.address() as AddressInfo).port, path: '/', ...old });
      assert.equal(res.body, 'ok');
    } finally {
      control.close();
    }
    // hookkeeper answers that client with a protocol_version alert (70): its minVersion refused the hello. (With a
    // lower minVersion, the handshake gets further and fails otherwise, "internal error", and this assertion fails.)
    const s = await start({ tlsCertFile: pki.certFile, tlsKeyFile: pki.keyFile });
    await assert.rejects(httpsRequest({ port: s.port, path: '/healthz', ...old }), /alert protocol version/);
  });

  test('a rotated certificate is served without a restart; a bad pair is refused and the old one kept', async () => {
    const pki = await makePki();
    // Mounted as the kubelet mounts a Secret: rotations are atomic "..data" symlink swaps.
    const mounted = new MountedPair(pki.certFile, pki.keyFile);
    await mounted.adopt();
    const publish = (pair: { certPem: string; keyPem: string }): Promise<void> => mounted.publish(pair);

    const s = await start({ tlsCertFile: pki.certFile, tlsKeyFile: pki.keyFile });
    const first = await httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem });
    assert.equal(first.peer.subject.CN, '127.0.0.1');

    await publish(
      await issueServingCertificate(pki.ca, {
        commonName: 'rotated',
        dnsNames: ['localhost'],
        ips: ['127.0.0.1'],
        days: 1,
      }),
    );
    await eventually(
      async () =>
        (await httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem })).peer.subject.CN === 'rotated',
    );
    assert.match(await s.metrics.registry.metrics(), /hookkeeper_reloads_total\{source="tls",result="success"\} 1/);

    // A key that does not match the certificate: refused, counted, and the rotated pair stays in use.
    const other = await issueServingCertificate(pki.ca, {
      commonName: 'mismatch',
      dnsNames: ['localhost'],
      ips: ['127.0.0.1'],
      days: 1,
    });
    const current = await issueServingCertificate(pki.ca, {
      commonName: 'never-served',
      dnsNames: ['localhost'],
      ips: ['127.0.0.1'],
      days: 1,
    });
    await publish({ certPem: current.certPem, keyPem: other.keyPem });
    await eventually(async () =>
      /hookkeeper_reloads_total\{source="tls",result="failure"\} 1/.test(await s.metrics.registry.metrics()),
    );
    const still = await httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem });
    assert.equal(still.peer.subject.CN, 'rotated');
    assert.equal(still.status, 200);
  });

  test('an expired or not yet valid certificate stops serve at start, naming the file and the dates', async () => {
    const pki = await makePki();
    const ca = await createCertificateAuthority({
      commonName: 'long-lived-ca',
      days: 30,
      now: new Date(Date.now() - 10 * DAY),
    });
    const leaf = (days: number, from: number) =>
      issueServingCertificate(ca, {
        commonName: '127.0.0.1',
        dnsNames: [],
        ips: ['127.0.0.1'],
        days,
        now: new Date(Date.now() + from),
      });
    for (const [pair, code, reason] of [
      [await leaf(1, -3 * DAY), 'TLS_INVALID', /has expired: valid until .*Z, now .*Z/],
      [await leaf(5, DAY), 'TLS_NOT_YET_VALID', /is not valid yet: valid from .*Z, now .*Z/],
    ] as const) {
      await Promise.all([writeFile(pki.certFile, pair.certPem), writeFile(pki.keyFile, pair.keyPem)]);
      await assert.rejects(start({ tlsCertFile: pki.certFile, tlsKeyFile: pki.keyFile }), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, code);
        assert.match(
          err.message,
          new RegExp(`^${pki.certFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ${reason.source}`),
        );
        return true;
      });
    }
  });

  test('a rotated certificate that has expired, or is not valid yet, is refused and counted; the good pair stays', async () => {
    const pki = await makePki();
    const mounted = new MountedPair(pki.certFile, pki.keyFile);
    await mounted.adopt();
    let clock = Date.now();
    const s = await start({ tlsCertFile: pki.certFile, tlsKeyFile: pki.keyFile, now: () => new Date(clock) });
    const served = async () =>
      (await httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem })).peer.subject.CN;
    const count = async (result: string) =>
      Number(
        new RegExp(`hookkeeper_reloads_total\\{source="tls",result="${result}"\\} (\\d+)`).exec(
          await s.metrics.registry.metrics(),
        )?.[1] ?? 0,
      );
    const failures = () => count('failure');
    const ca = await createCertificateAuthority({
      commonName: 'long-lived-ca',
      days: 30,
      now: new Date(clock - 10 * DAY),
    });

    await mounted.publish(
      await issueServingCertificate(ca, {
        commonName: 'expired',
        dnsNames: [],
        ips: ['127.0.0.1'],
        days: 1,
        now: new Date(clock - 3 * DAY),
      }),
    );
    await eventually(async () => (await failures()) === 1);
    assert.equal(await served(), '127.0.0.1');

    // Not valid yet: refused while it is not; tried again at each check, so it is served once it becomes valid.
    await mounted.publish(
      await issueServingCertificate(ca, {
        commonName: 'tomorrow',
        dnsNames: [],
        ips: ['127.0.0.1'],
        days: 5,
        now: new Date(clock + DAY),
      }),
    );
    await eventually(async () => (await failures()) >= 2);
    assert.equal(await served(), '127.0.0.1');
    assert.equal(await count('success'), 0);
    clock += 2 * DAY;
    // (A client here checks its own clock, which has not moved: the reload counter shows the switch.)
    await eventually(async () => (await count('success')) === 1);
  });

  test('a changed policy file is applied; an invalid one is refused and the last good one kept', async () => {
    const pki = await makePki();
    const config = join(pki.dir, 'policy.yaml');
    await writeFile(config, 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n');
    const s = await start({ tlsCertFile: pki.certFile, tlsKeyFile: pki.keyFile, configFile: config });
    const decide = async () =>
      JSON.parse(
        (await httpsRequest({ port: s.port, path: '/validate', method: 'POST', body: removeEtcd, ca: pki.ca.certPem }))
          .body,
      ).response.allowed as boolean;
    assert.equal(await decide(), false);

    await replaceFile(
      config,
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement: {owner-only-removal: warn}\n',
    );
    await eventually(decide);

    await replaceFile(
      config,
      'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\nenforcement: {owner-only-removal: nope}\n',
    );
    await eventually(async () =>
      /hookkeeper_reloads_total\{source="policy",result="failure"\} 1/.test(await s.metrics.registry.metrics()),
    );
    assert.equal(await decide(), true);
  });

  test('a policy reload applies what two reads agreed on; a file left half-written is refused and the last good one kept', async () => {
    const pki = await makePki();
    const config = join(pki.dir, 'policy.yaml');
    const header = 'apiVersion: hookkeeper.io/v1alpha1\nkind: Policy\n';
    await writeFile(config, header);
    // The policy file as a reader sees it while a writer rewrites it in place: the new version for exactly two
    // reads, then the writer starts again and stops halfway.
    const script: string[] = [];
    const writer: { stopped?: string } = {};
    const read = async (file: string): Promise<Buffer> => {
      if (file !== config) return readFile(file);
      const next = script.shift() ?? writer.stopped;
      return next === undefined ? readFile(file) : Buffer.from(next);
    };
    const applied: string[] = [];
    const s = await start({
      tlsCertFile: pki.certFile,
      tlsKeyFile: pki.keyFile,
      configFile: config,
      readFile: read,
      onPolicy: (p) => applied.push(p.enforcement['owner-only-removal']),
    });
    const decide = async () =>
      JSON.parse(
        (await httpsRequest({ port: s.port, path: '/validate', method: 'POST', body: removeEtcd, ca: pki.ca.certPem }))
          .body,
      ).response.allowed as boolean;
    assert.equal(await decide(), false);

    script.push(
      `${header}enforcement: {owner-only-removal: warn}\n`,
      `${header}enforcement: {owner-only-removal: warn}\n`,
    );
    writer.stopped = `${header}enforcement: {owner-only-removal: wa`;
    await eventually(async () =>
      /hookkeeper_reloads_total\{source="policy",result="failure"\} 1/.test(await s.metrics.registry.metrics()),
    );
    assert.deepEqual(applied, ['deny', 'warn']);
    assert.equal(await decide(), true);
  });

  test('mTLS: only clients with a certificate from the client CA (and an allowed CN) get through', async () => {
    const pki = await makePki();
    const clientCa = await createCertificateAuthority({ commonName: 'apiserver-client-ca', days: 1 });
    const clientCaFile = join(pki.dir, 'client-ca.crt');
    await writeFile(clientCaFile, clientCa.certPem);
    const s = await start({
      tlsCertFile: pki.certFile,
      tlsKeyFile: pki.keyFile,
      clientCaFile,
      clientCommonNames: ['kube-apiserver'],
    });
    const good = await issueClientCertificate(clientCa, { commonName: 'kube-apiserver', days: 1 });
    const wrongName = await issueClientCertificate(clientCa, { commonName: 'mallory', days: 1 });
    const foreign = await issueClientCertificate(await createCertificateAuthority({ commonName: 'other', days: 1 }), {
      commonName: 'kube-apiserver',
      days: 1,
    });

    const ok = await httpsRequest({
      port: s.port,
      path: '/healthz',
      ca: pki.ca.certPem,
      cert: good.certPem,
      key: good.keyPem,
    });
    assert.equal(ok.status, 200);
    await assert.rejects(httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem }));
    await assert.rejects(
      httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem, cert: foreign.certPem, key: foreign.keyPem }),
    );
    await assert.rejects(
      httpsRequest({
        port: s.port,
        path: '/healthz',
        ca: pki.ca.certPem,
        cert: wrongName.certPem,
        key: wrongName.keyPem,
      }),
    );
  });

  test('shutdown finishes the request in flight, then refuses new connections', async () => {
    const pki = await makePki();
    const s = await startServer(
      {
        host: '127.0.0.1',
        port: 0,
        devCertDir: '/nonexistent',
        tlsCertFile: pki.certFile,
        tlsKeyFile: pki.keyFile,
        reloadIntervalMs: 1000,
        shutdownGraceMs: 5000,
      },
      silentLogger(),
      createMetrics(),
    );
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: s.port,
          path: '/validate',
          method: 'POST',
          ca: pki.ca.certPem,
          agent: false,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(removeEtcd) },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      // Half the body now, the rest after shutdown has begun.
      req.write(removeEtcd.slice(0, 100));
      setTimeout(() => {
        const closed = s.shutdown();
        setTimeout(() => {
          req.end(removeEtcd.slice(100));
          void closed;
        }, 100);
      }, 200);
    });
    const res = await response;
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).response.uid, 'uid-tls');
    await s.shutdown();
    await assert.rejects(httpsRequest({ port: s.port, path: '/healthz', ca: pki.ca.certPem }));
  });

  test('without certificate flags, dev certificates are generated and reused', async () => {
    const pki = await makePki();
    const devCertDir = join(pki.dir, 'dev');
    const s = await start({ devCertDir });
    const ca = await readFile(join(devCertDir, 'ca.crt'));
    const res = await httpsRequest({ port: s.port, path: '/healthz', ca });
    assert.equal(res.status, 200);
    const again = await start({ devCertDir });
    assert.equal(
      (await httpsRequest({ port: again.port, path: '/healthz', ca })).peer.serialNumber,
      res.peer.serialNumber,
    );
  });
});
