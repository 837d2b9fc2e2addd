// Certificates on disk and an HTTPS client for tests that need real TLS.
import { mkdtemp, rename, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertKeyPem,
} from '../../src/infrastructure/certs/pki.js';

export interface TestPki {
  dir: string;
  ca: CertKeyPem;
  certFile: string;
  keyFile: string;
  caFile: string;
}

export async function makePki(commonName = 'hookkeeper-test-ca'): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-tls-'));
  const ca = await createCertificateAuthority({ commonName, days: 1 });
  const leaf = await issueServingCertificate(ca, {
    commonName: '127.0.0.1',
    dnsNames: ['localhost'],
    ips: ['127.0.0.1'],
    days: 1,
  });
  const pki = { dir, ca, certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), caFile: join(dir, 'ca.crt') };
  await Promise.all([
    writeFile(pki.certFile, leaf.certPem),
    writeFile(pki.keyFile, leaf.keyPem),
    writeFile(pki.caFile, ca.certPem),
  ]);
  return pki;
}

export interface HttpsResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  peer: PeerCertificate;
}

export function httpsRequest(options: {
  port: number;
  path: string;
  method?: string;
  body?: string;
  ca: string | Buffer;
  cert?: string;
  key?: string;
  maxVersion?: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2';
  agent?: false;
  /** OpenSSL cipher string, e.g. "DEFAULT@SECLEVEL=0" so that OpenSSL 3 lets the client offer TLS 1.0/1.1. */
  ciphers?: string;
}): Promise<HttpsResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port,
        path: options.path,
        method: options.method ?? 'GET',
        ca: options.ca,
        agent: false,
        headers:
          options.body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) },
        ...(options.cert ? { cert: options.cert, key: options.key } : {}),
        ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
        ...(options.minVersion ? { minVersion: options.minVersion } : {}),
        ...(options.ciphers ? { ciphers: options.ciphers } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        const peer = (res.socket as TLSSocket).getPeerCertificate();
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), peer }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Replaces a file in one step, as the kubelet updates a mounted ConfigMap or Secret (a symlink swap): a watcher
 * polling it never reads a half-written file.
 */
export async function replaceFile(path: string, text: string): Promise<void> {
  const next = `${path}.next`;
  await writeFile(next, text);
  await rename(next, path);
}
