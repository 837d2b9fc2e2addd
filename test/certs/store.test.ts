// The certificate directory: creating, refusing to overwrite, renewing from the kept CA, and dev certificates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { caBundle, describeCertificate } from '../../src/infrastructure/certs/pki.js';
import {
  CERT_FILES,
  ensureDevCertificates,
  readCertificateSet,
  runCerts,
} from '../../src/infrastructure/certs/store.js';
import { AppError } from '../../src/errors.js';

const DAY = 24 * 60 * 60 * 1000;
const now = new Date('2030-01-01T00:00:00Z');
const base = { service: 'hookkeeper', namespace: 'hookkeeper', ips: [] as string[], now };

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookkeeper-certs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const isCode =
  (code: string) =>
  (err: unknown): boolean =>
    err instanceof AppError && err.code === code;

test('runCerts writes the kubernetes.io/tls layout, keys private, and returns the caBundle of ca.crt', async (t) => {
  const out = join(await tempDir(t), 'certs');
  const result = await runCerts({ ...base, out, ips: ['10.0.0.7'], days: 30 });
  assert.deepEqual((await readdir(out)).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
  for (const key of [CERT_FILES.caKey, CERT_FILES.tlsKey])
    assert.equal((await stat(join(out, key))).mode & 0o777, 0o600);
  assert.equal((await stat(out)).mode & 0o777, 0o700);

  const caPem = await readFile(join(out, 'ca.crt'), 'utf8');
  const tlsPem = await readFile(join(out, 'tls.crt'), 'utf8');
  assert.equal(result.caBundle, caBundle(caPem));
  assert.equal(result.issued, true);
  assert.equal(result.caCreated, true);
  assert.deepEqual(result.notAfter, new Date(now.getTime() + 30 * DAY));
  assert.ok(new X509Certificate(tlsPem).verify(new X509Certificate(caPem).publicKey));
  const leaf = describeCertificate(tlsPem);
  assert.equal(leaf.subject, 'CN=hookkeeper.hookkeeper.svc');
  assert.deepEqual(leaf.dnsNames, [
    'hookkeeper',
    'hookkeeper.hookkeeper',
    'hookkeeper.hookkeeper.svc',
    'hookkeeper.hookkeeper.svc.cluster.local',
  ]);
  assert.deepEqual(leaf.ips, ['10.0.0.7']);
  // The CA outlives many serving certificates.
  assert.ok(describeCertificate(caPem).notAfter.getTime() >= now.getTime() + 3650 * DAY);
});

test('runCerts refuses to overwrite an existing CA without --renew, and changes nothing', async (t) => {
  const out = await tempDir(t);
  await runCerts({ ...base, out });
  const before = await readFile(join(out, 'ca.key'), 'utf8');
  await assert.rejects(
    runCerts({ ...base, out }),
    (err: unknown) => isCode('USAGE')(err) && /already exists.*--renew/.test((err as Error).message),
  );
  assert.equal(await readFile(join(out, 'ca.key'), 'utf8'), before);
});

test('runCerts --renew keeps the CA and issues a new serving certificate', async (t) => {
  const out = await tempDir(t);
  const first = await runCerts({ ...base, out });
  const read = (f: string): Promise<string> => readFile(join(out, f), 'utf8');
  const caCrt = await read('ca.crt');
  const caKey = await read('ca.key');
  const tlsCrt = await read('tls.crt');
  const later = new Date(now.getTime() + 100 * DAY);
  const renewed = await runCerts({ ...base, out, renew: true, now: later });
  assert.equal(renewed.caBundle, first.caBundle);
  assert.equal(renewed.issued, true);
  assert.equal(renewed.caCreated, false);
  assert.equal(await readFile(join(out, 'ca.crt'), 'utf8'), caCrt);
  assert.equal(await readFile(join(out, 'ca.key'), 'utf8'), caKey);
  const newTls = await readFile(join(out, 'tls.crt'), 'utf8');
  assert.notEqual(newTls, tlsCrt);
  assert.ok(new X509Certificate(newTls).verify(new X509Certificate(caCrt).publicKey));
  assert.deepEqual(renewed.notAfter, new Date(later.getTime() + 365 * DAY));
  assert.deepEqual(await readCertificateSet(out), {
    ca: { certPem: caCrt, keyPem: caKey },
    serving: { certPem: newTls, keyPem: await readFile(join(out, 'tls.key'), 'utf8') },
  });
});

test('runCerts --renew --renew-before re-issues only when expiry is near or the names changed', async (t) => {
  const out = await tempDir(t);
  await runCerts({ ...base, out, days: 90 });
  const tls = (): Promise<string> => readFile(join(out, 'tls.crt'), 'utf8');
  const original = await tls();

  const early = await runCerts({ ...base, out, renew: true, renewBefore: 30, now: new Date(now.getTime() + 10 * DAY) });
  assert.equal(early.issued, false);
  assert.deepEqual(early.notAfter, new Date(now.getTime() + 90 * DAY));
  assert.equal(await tls(), original);

  const moreNames = await runCerts({
    ...base,
    out,
    days: 90,
    ips: ['127.0.0.1'],
    renew: true,
    renewBefore: 30,
    now: new Date(now.getTime() + 10 * DAY),
  });
  assert.equal(moreNames.issued, true);
  assert.deepEqual(describeCertificate(await tls()).ips, ['127.0.0.1']);

  // That one runs to day 100, so at day 75 it is due.
  const due = await runCerts({
    ...base,
    out,
    days: 90,
    ips: ['127.0.0.1'],
    renew: true,
    renewBefore: 30,
    now: new Date(now.getTime() + 75 * DAY),
  });
  assert.equal(due.issued, true);
  assert.deepEqual(due.notAfter, new Date(now.getTime() + 165 * DAY));
});

test('runCerts --renew without a CA, and bad names, are usage errors', async (t) => {
  const out = await tempDir(t);
  await assert.rejects(runCerts({ ...base, out, renew: true }), isCode('USAGE'));
  await assert.rejects(runCerts({ ...base, out, service: 'Hook_Keeper' }), isCode('USAGE'));
  await assert.rejects(runCerts({ ...base, out, namespace: '' }), isCode('USAGE'));
  await assert.rejects(runCerts({ ...base, out, ips: ['not-an-ip'] }), isCode('USAGE'));
  await assert.rejects(runCerts({ ...base, out, renew: true, renewBefore: -1 }), isCode('USAGE'));
  assert.deepEqual(await readdir(out), []);
});

test('readCertificateSet reports half pairs and mismatched keys', async (t) => {
  const a = await tempDir(t);
  const b = await tempDir(t);
  assert.deepEqual(await readCertificateSet(a), {});
  await runCerts({ ...base, out: a });
  await runCerts({ ...base, out: b });
  await writeFile(join(a, 'tls.key'), await readFile(join(b, 'tls.key')));
  await assert.rejects(
    readCertificateSet(a),
    (err: unknown) => isCode('TLS_INVALID')(err) && /is not the key of/.test((err as Error).message),
  );
  await rm(join(a, 'tls.key'));
  await assert.rejects(
    readCertificateSet(a),
    (err: unknown) => isCode('TLS_INVALID')(err) && /tls\.key is missing/.test((err as Error).message),
  );
});

test('ensureDevCertificates creates a localhost certificate, reuses it, and replaces it when it expires within a day', async (t) => {
  const dir = join(await tempDir(t), '.dev-certs');
  const files = await ensureDevCertificates(dir, now);
  assert.deepEqual(files, {
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
    caFile: join(dir, 'ca.crt'),
  });
  const first = await readFile(files.certFile, 'utf8');
  const leaf = describeCertificate(first);
  assert.deepEqual(leaf.dnsNames, ['localhost']);
  assert.deepEqual(leaf.ips, ['127.0.0.1', '::1']);
  assert.equal((await stat(files.keyFile)).mode & 0o777, 0o600);

  await ensureDevCertificates(dir, new Date(now.getTime() + 10 * DAY));
  assert.equal(await readFile(files.certFile, 'utf8'), first, 'reused while valid');

  const ca = await readFile(files.caFile, 'utf8');
  await ensureDevCertificates(dir, new Date(leaf.notAfter.getTime() - DAY / 2));
  const renewed = await readFile(files.certFile, 'utf8');
  assert.notEqual(renewed, first);
  assert.equal(await readFile(files.caFile, 'utf8'), ca, 'the CA is kept while it lasts');
  assert.ok(new X509Certificate(renewed).verify(new X509Certificate(ca).publicKey));
});

test('ensureDevCertificates replaces unreadable files', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'tls.crt'), 'garbage');
  const files = await ensureDevCertificates(dir, now);
  const cert = new X509Certificate(await readFile(files.certFile, 'utf8'));
  assert.ok(cert.verify(new X509Certificate(await readFile(files.caFile, 'utf8')).publicKey));
});
