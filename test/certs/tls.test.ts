// A real TLS round trip: a client that trusts only our CA reaches a server using our leaf, by IP and by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
} from '../../src/infrastructure/certs/pki.js';
import type { CertKeyPem } from '../../src/infrastructure/certs/pki.js';

interface Served {
  port: number;
  close: () => Promise<void>;
}

async function serve(serving: CertKeyPem, mtlsCa?: string): Promise<Served> {
  const server = https.createServer(
    {
      key: serving.keyPem,
      cert: serving.certPem,
      ...(mtlsCa && { ca: mtlsCa, requestCert: true, rejectUnauthorized: true }),
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.end(mtlsCa ? `hello ${String(peer.subject.CN)}` : 'hello');
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function get(port: number, opts: { ca: string; servername?: string; client?: CertKeyPem }): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        ca: opts.ca,
        agent: false,
        ...(opts.servername && { servername: opts.servername }),
        ...(opts.client && { cert: opts.client.certPem, key: opts.client.keyPem }),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve(body));
      },
    );
    req.on('error', reject);
  });
}

test('a client trusting only the CA accepts the leaf by IP SAN and by DNS SAN; other CAs and names fail', async (t) => {
  const ca = await createCertificateAuthority({ commonName: 'round-trip-ca', days: 1 });
  const other = await createCertificateAuthority({ commonName: 'other-ca', days: 1 });
  const leaf = await issueServingCertificate(ca, {
    commonName: 'localhost',
    dnsNames: ['localhost'],
    ips: ['127.0.0.1'],
    days: 1,
  });
  const server = await serve(leaf);
  t.after(() => server.close());

  assert.equal(await get(server.port, { ca: ca.certPem }), 'hello');
  assert.equal(await get(server.port, { ca: ca.certPem, servername: 'localhost' }), 'hello');
  await assert.rejects(get(server.port, { ca: other.certPem }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  await assert.rejects(get(server.port, { ca: ca.certPem, servername: 'hookkeeper.example' }), {
    code: 'ERR_TLS_CERT_ALTNAME_INVALID',
  });
});

test('mTLS: the server accepts a client certificate from its CA and reads its CN', async (t) => {
  const ca = await createCertificateAuthority({ commonName: 'mtls-ca', days: 1 });
  const leaf = await issueServingCertificate(ca, {
    commonName: 'localhost',
    dnsNames: [],
    ips: ['127.0.0.1'],
    days: 1,
  });
  const client = await issueClientCertificate(ca, {
    commonName: 'kube-apiserver',
    organizations: ['system:masters'],
    days: 1,
  });
  const server = await serve(leaf, ca.certPem);
  t.after(() => server.close());

  assert.equal(await get(server.port, { ca: ca.certPem, client }), 'hello kube-apiserver');
  await assert.rejects(get(server.port, { ca: ca.certPem }));
});
