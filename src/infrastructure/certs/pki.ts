// Makes the CA, serving and client certificates the API server and tests need, so nobody has to script openssl.
// @peculiar/x509 loads tsyringe, which needs the Reflect metadata API before it is imported.
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import { AppError } from '../../errors.js';
import { generateKeyPair, importSigningKey, privateKeyToPem } from './keys.js';
import type { SigningKey } from './keys.js';

// Set once, before any other @peculiar/x509 call: the library has no crypto of its own.
x509.cryptoProvider.set(webcrypto);

export interface CertKeyPem {
  certPem: string;
  /** PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"). */
  keyPem: string;
}

export interface CertificateDescription {
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  dnsNames: string[];
  ips: string[];
}

const DAY_MS = 24 * 60 * 60 * 1000;
// Another machine's clock (the API server's, a kubelet's) may run behind ours; a cert that is "not yet valid" there
// fails every handshake, so validity starts a little in the past.
const BACKDATE_MS = 5 * 60 * 1000;

export async function createCertificateAuthority(opts: {
  commonName: string;
  days: number;
  now?: Date;
}): Promise<CertKeyPem> {
  const { notBefore, notAfter } = validity(opts.days, opts.now);
  const { keys, signing } = await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [opts.commonName] }],
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: signing.algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyToPem(keys.privateKey) };
}

export async function issueServingCertificate(
  ca: CertKeyPem,
  opts: { commonName: string; dnsNames: string[]; ips: string[]; days: number; now?: Date },
): Promise<CertKeyPem> {
  for (const ip of opts.ips) {
    if (isIP(ip) === 0) throw new AppError('USAGE', `"${ip}" is not an IP address`);
  }
  if (opts.dnsNames.length + opts.ips.length === 0) {
    // Go clients match the host against SANs only (no CommonName fallback since Go 1.15), so a SAN-less cert is useless.
    throw new AppError('USAGE', 'a serving certificate needs at least one DNS name or IP address');
  }
  const names: x509.JsonGeneralNames = [
    ...opts.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...opts.ips.map((value) => ({ type: 'ip' as const, value })),
  ];
  return issue(ca, {
    subject: [{ CN: [opts.commonName] }],
    days: opts.days,
    now: opts.now,
    extensions: [
      new x509.SubjectAlternativeNameExtension(names),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      // digitalSignature only: keyEncipherment means RSA key transport, which an EC key cannot do (RFC 5480 §3);
      // TLS 1.2 ECDHE and TLS 1.3 need just the signature.
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
}

/** A client certificate for mTLS tests; Kubernetes reads the user from CN and the groups from O. */
export async function issueClientCertificate(
  ca: CertKeyPem,
  opts: { commonName: string; organizations?: string[]; days: number; now?: Date },
): Promise<CertKeyPem> {
  return issue(ca, {
    subject: [...(opts.organizations ?? []).map((o) => ({ O: [o] })), { CN: [opts.commonName] }],
    days: opts.days,
    now: opts.now,
    extensions: [
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
}

/** The names a Service is reached by from inside the cluster; the API server uses NAME.NS.svc. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [
    service,
    `${service}.${namespace}`,
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.cluster.local`,
  ];
}

export function describeCertificate(pem: string): CertificateDescription {
  const cert = parseCertificate(pem);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  const items = san?.names.items ?? [];
  return {
    subject: cert.subject,
    issuer: cert.issuer,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    dnsNames: items.filter((n) => n.type === 'dns').map((n) => n.value),
    ips: items.filter((n) => n.type === 'ip').map((n) => n.value),
  };
}

/** The value of a webhook's clientConfig.caBundle: the PEM itself, base64-encoded (not the DER). */
export function caBundle(caPem: string): string {
  return Buffer.from(caPem, 'utf8').toString('base64');
}

async function issue(
  ca: CertKeyPem,
  leaf: { subject: x509.JsonName; days: number; now: Date | undefined; extensions: x509.Extension[] },
): Promise<CertKeyPem> {
  const caCert = parseCertificate(ca.certPem);
  const caKey: SigningKey = await importSigningKey(ca.keyPem);
  const { keys } = await generateKeyPair();
  const { notBefore, notAfter } = validity(leaf.days, leaf.now);
  const caSki = caCert.getExtension(x509.SubjectKeyIdentifierExtension);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: leaf.subject,
    // The CA's Name object, not its string form: chain building compares the raw issuer bytes with the CA's subject.
    issuer: caCert.subjectName,
    notBefore,
    // A leaf outliving its CA would fail verification from the CA's expiry on anyway; say so in its dates.
    notAfter: notAfter > caCert.notAfter ? caCert.notAfter : notAfter,
    publicKey: keys.publicKey,
    signingKey: caKey.key,
    signingAlgorithm: caKey.algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      caSki
        ? new x509.AuthorityKeyIdentifierExtension(caSki.keyId)
        : await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...leaf.extensions,
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyToPem(keys.privateKey) };
}

function parseCertificate(pem: string): x509.X509Certificate {
  try {
    return new x509.X509Certificate(pem);
  } catch (cause) {
    throw new AppError('TLS_INVALID', 'not a PEM certificate', { cause });
  }
}

function validity(days: number, now: Date = new Date()): { notBefore: Date; notAfter: Date } {
  if (!Number.isInteger(days) || days < 1) throw new AppError('USAGE', `days must be a whole number ≥ 1, got ${days}`);
  // X.509 times have whole seconds; dropping the milliseconds makes describeCertificate round-trip exactly.
  const start = Math.floor(now.getTime() / 1000) * 1000;
  return { notBefore: new Date(start - BACKDATE_MS), notAfter: new Date(start + days * DAY_MS) };
}

/** 128 random bits with the top bit clear: RFC 5280 wants positive serials of at most 20 octets. */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}
