// The PKI's certificates verify as a chain and carry exactly the names and extensions the API server relies on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  caBundle,
  createCertificateAuthority,
  describeCertificate,
  issueClientCertificate,
  issueServingCertificate,
  serviceDnsNames,
} from '../../src/infrastructure/certs/pki.js';
import type { CertKeyPem } from '../../src/infrastructure/certs/pki.js';
import { AppError } from '../../src/errors.js';

const now = new Date('2030-01-01T12:00:00.500Z');

test('the CA is a self-signed CA with keyCertSign and a P-256 key', async () => {
  const ca = await createCertificateAuthority({ commonName: 'test-ca', days: 10, now });
  const cert = new X509Certificate(ca.certPem);
  assert.equal(cert.ca, true);
  assert.equal(cert.subject, 'CN=test-ca');
  assert.ok(cert.verify(cert.publicKey));
  assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  assert.ok(cert.checkPrivateKey(createPrivateKey(ca.keyPem)));

  const parsed = new x509.X509Certificate(ca.certPem);
  const basic = parsed.getExtension(x509.BasicConstraintsExtension);
  assert.equal(basic?.ca, true);
  assert.equal(basic?.critical, true);
  const usage = parsed.getExtension(x509.KeyUsagesExtension);
  assert.equal(usage?.usages, x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
  assert.equal(usage?.critical, true);
  assert.ok(parsed.getExtension(x509.SubjectKeyIdentifierExtension));
});

test('a serving certificate chains to its CA and matches its IP and DNS SANs only', async () => {
  const ca = await createCertificateAuthority({ commonName: 'test-ca', days: 10, now });
  const leafPem = await issueServingCertificate(ca, {
    commonName: 'hookkeeper.hookkeeper.svc',
    dnsNames: ['localhost', ...serviceDnsNames('hookkeeper', 'hookkeeper')],
    ips: ['127.0.0.1', '::1'],
    days: 5,
    now,
  });
  const caCert = new X509Certificate(ca.certPem);
  const leaf = new X509Certificate(leafPem.certPem);
  assert.ok(leaf.verify(caCert.publicKey));
  assert.ok(leaf.checkIssued(caCert));
  assert.equal(leaf.ca, false);
  assert.equal(leaf.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(leaf.checkIP('::1'), '::1');
  assert.equal(leaf.checkIP('10.0.0.1'), undefined);
  assert.equal(leaf.checkHost('hookkeeper.hookkeeper.svc'), 'hookkeeper.hookkeeper.svc');
  assert.equal(leaf.checkHost('localhost'), 'localhost');
  assert.equal(leaf.checkHost('other.example'), undefined);
  assert.deepEqual(leaf.keyUsage, ['1.3.6.1.5.5.7.3.1']); // Node names the EKU here: serverAuth only
  assert.ok(leaf.checkPrivateKey(createPrivateKey(leafPem.keyPem)));

  assert.deepEqual(describeCertificate(leafPem.certPem), {
    subject: 'CN=hookkeeper.hookkeeper.svc',
    issuer: 'CN=test-ca',
    notBefore: new Date('2030-01-01T11:55:00Z'),
    notAfter: new Date('2030-01-06T12:00:00Z'),
    dnsNames: [
      'localhost',
      'hookkeeper',
      'hookkeeper.hookkeeper',
      'hookkeeper.hookkeeper.svc',
      'hookkeeper.hookkeeper.svc.cluster.local',
    ],
    ips: ['127.0.0.1', '::1'],
  });

  const parsed = new x509.X509Certificate(leafPem.certPem);
  const usage = parsed.getExtension(x509.KeyUsagesExtension);
  assert.equal(usage?.usages, x509.KeyUsageFlags.digitalSignature);
  assert.equal(usage?.critical, true);
  assert.equal(parsed.getExtension(x509.BasicConstraintsExtension)?.ca, false);
  const aki = parsed.getExtension(x509.AuthorityKeyIdentifierExtension);
  const caSki = new x509.X509Certificate(ca.certPem).getExtension(x509.SubjectKeyIdentifierExtension);
  assert.equal(aki?.keyId, caSki?.keyId);
});

test('serials are random and positive', async () => {
  const ca = await createCertificateAuthority({ commonName: 'test-ca', days: 1, now });
  const opts = { commonName: 'x', dnsNames: ['x'], ips: [], days: 1, now };
  const a = new X509Certificate((await issueServingCertificate(ca, opts)).certPem).serialNumber;
  const b = new X509Certificate((await issueServingCertificate(ca, opts)).certPem).serialNumber;
  assert.notEqual(a, b);
  assert.ok(Number.parseInt(a.slice(0, 2), 16) < 0x80);
});

test('a leaf never outlives its CA', async () => {
  const ca = await createCertificateAuthority({ commonName: 'short-ca', days: 2, now });
  const leaf = await issueServingCertificate(ca, { commonName: 'x', dnsNames: ['x'], ips: [], days: 365, now });
  assert.deepEqual(describeCertificate(leaf.certPem).notAfter, describeCertificate(ca.certPem).notAfter);
});

test('a client certificate carries CN, organizations and clientAuth', async () => {
  const ca = await createCertificateAuthority({ commonName: 'test-ca', days: 1, now });
  const client = await issueClientCertificate(ca, {
    commonName: 'system:apiserver',
    organizations: ['system:masters', 'hookkeeper'],
    days: 1,
    now,
  });
  const cert = new X509Certificate(client.certPem);
  assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
  assert.equal(cert.subject, 'O=system:masters\nO=hookkeeper\nCN=system:apiserver');
  assert.deepEqual(describeCertificate(client.certPem).dnsNames, []);
});

test('bad inputs are usage errors', async () => {
  const ca = await createCertificateAuthority({ commonName: 'test-ca', days: 1, now });
  const usage = (err: unknown): boolean => err instanceof AppError && err.code === 'USAGE';
  await assert.rejects(
    issueServingCertificate(ca, { commonName: 'x', dnsNames: [], ips: ['localhost'], days: 1 }),
    usage,
  );
  await assert.rejects(issueServingCertificate(ca, { commonName: 'x', dnsNames: [], ips: [], days: 1 }), usage);
  await assert.rejects(createCertificateAuthority({ commonName: 'x', days: 0 }), usage);
  await assert.rejects(createCertificateAuthority({ commonName: 'x', days: 1.5 }), usage);
  assert.throws(
    () => describeCertificate('not a certificate'),
    (err: unknown) => err instanceof AppError && err.code === 'TLS_INVALID',
  );
});

test('a CA made elsewhere signs too: RSA and SEC1 ("EC PRIVATE KEY") keys', async () => {
  const rsa = await foreignCa(
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    'pkcs8',
  );
  const ec = await foreignCa({ name: 'ECDSA', namedCurve: 'P-384' }, 'sec1');
  for (const ca of [rsa, ec]) {
    const leaf = await issueServingCertificate(ca, { commonName: 'x', dnsNames: ['localhost'], ips: [], days: 1, now });
    const caCert = new X509Certificate(ca.certPem);
    assert.ok(new X509Certificate(leaf.certPem).verify(caCert.publicKey));
    assert.ok(new X509Certificate(leaf.certPem).checkIssued(caCert));
  }
});

test('serviceDnsNames lists every in-cluster name of a Service, and caBundle is base64 of the PEM', () => {
  assert.deepEqual(serviceDnsNames('hk', 'ns'), ['hk', 'hk.ns', 'hk.ns.svc', 'hk.ns.svc.cluster.local']);
  const pem = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  assert.equal(caBundle(pem), Buffer.from(pem).toString('base64'));
  assert.equal(Buffer.from(caBundle(pem), 'base64').toString(), pem);
});

/** A CA as openssl would make one, with the private key in the given encoding. */
async function foreignCa(
  algorithm: webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams,
  encoding: 'pkcs8' | 'sec1',
): Promise<CertKeyPem> {
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'C=US, O=Acme, CN=foreign-ca',
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 86_400_000 * 2),
    keys,
    signingAlgorithm: algorithm.name === 'ECDSA' ? { name: 'ECDSA', hash: 'SHA-384' } : algorithm,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const keyPem =
    encoding === 'sec1'
      ? key.export({ type: 'sec1', format: 'pem' }).toString()
      : key.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem: cert.toString('pem'), keyPem };
}
