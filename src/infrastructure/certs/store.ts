// Certificates on disk in the kubernetes.io/tls layout, so the same directory feeds `serve`, a Secret and a caBundle.
import { randomBytes, createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { AppError } from '../../errors.js';
import {
  caBundle,
  createCertificateAuthority,
  describeCertificate,
  issueServingCertificate,
  serviceDnsNames,
} from './pki.js';
import type { CertKeyPem } from './pki.js';

/** File names inside a certificate directory: a kubernetes.io/tls Secret's keys, plus the CA pair. */
export const CERT_FILES = { caCert: 'ca.crt', caKey: 'ca.key', tlsCert: 'tls.crt', tlsKey: 'tls.key' } as const;

/** Each pair is present only when both of its files are. */
export interface CertificateSet {
  ca?: CertKeyPem;
  serving?: CertKeyPem;
}

export interface RunCertsOptions {
  out: string;
  service: string;
  namespace: string;
  ips: string[];
  /** Lifetime of the serving certificate (default 365); a new CA lives at least ten years. */
  days?: number;
  /** Keep the CA in `out` and re-issue the serving certificate from it. */
  renew?: boolean;
  /** With `renew`: re-issue only if the serving certificate expires within this many days or no longer fits. */
  renewBefore?: number;
  now?: Date;
}

export interface RunCertsResult {
  caBundle: string;
  /** Whether a serving certificate was written (false: `renewBefore` found the current one good). */
  issued: boolean;
  caCreated: boolean;
  /** The serving certificate's expiry, whether new or kept. */
  notAfter: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_DAYS = 365;
// Rotating a CA means updating every caBundle that trusts it, so it outlives many serving certificates.
const CA_MIN_DAYS = 3650;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export async function readCertificateSet(dir: string): Promise<CertificateSet> {
  const [ca, serving] = await Promise.all([
    readPair(join(dir, CERT_FILES.caCert), join(dir, CERT_FILES.caKey)),
    readPair(join(dir, CERT_FILES.tlsCert), join(dir, CERT_FILES.tlsKey)),
  ]);
  return { ...(ca && { ca }), ...(serving && { serving }) };
}

/** Writes the pairs present in `set`, leaving the others' files alone. */
export async function writeCertificateSet(dir: string, set: CertificateSet): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Key before certificate: `serve` reloads when tls.crt changes, and by then the matching key is in place.
  if (set.ca) {
    await writeAtomic(join(dir, CERT_FILES.caKey), set.ca.keyPem, 0o600);
    await writeAtomic(join(dir, CERT_FILES.caCert), set.ca.certPem, 0o644);
  }
  if (set.serving) {
    await writeAtomic(join(dir, CERT_FILES.tlsKey), set.serving.keyPem, 0o600);
    await writeAtomic(join(dir, CERT_FILES.tlsCert), set.serving.certPem, 0o644);
  }
}

/** `hookkeeper certs`: a CA and a serving certificate for a Service, or a renewed serving certificate from the kept CA. */
export async function runCerts(opts: RunCertsOptions): Promise<RunCertsResult> {
  const now = opts.now ?? new Date();
  const days = opts.days ?? DEFAULT_DAYS;
  checkName('--service', opts.service);
  checkName('--namespace', opts.namespace);
  if (opts.renewBefore !== undefined && !(Number.isInteger(opts.renewBefore) && opts.renewBefore >= 0)) {
    throw new AppError('USAGE', `--renew-before must be a whole number of days ≥ 0, got ${opts.renewBefore}`);
  }
  const wanted = { dnsNames: serviceDnsNames(opts.service, opts.namespace), ips: opts.ips };

  const present = await existingFiles(opts.out);
  if (!opts.renew && present.length > 0) {
    throw new AppError(
      'USAGE',
      `${join(opts.out, present[0] ?? '')} already exists: pass --renew to re-issue the serving certificate from the CA there, or choose another --out`,
    );
  }
  const existing = opts.renew ? await readCertificateSet(opts.out) : {};
  if (opts.renew && !existing.ca) {
    throw new AppError(
      'USAGE',
      `--renew needs ${CERT_FILES.caCert} and ${CERT_FILES.caKey} in ${opts.out}; run without --renew to create a CA`,
    );
  }

  const ca =
    existing.ca ??
    (await createCertificateAuthority({
      // "name@seconds", like Kubernetes' own self-signed CAs, tells one generation of CA from the next.
      commonName: `${opts.service}.${opts.namespace}-ca@${Math.floor(now.getTime() / 1000)}`,
      days: Math.max(CA_MIN_DAYS, days),
      now,
    }));
  const keep =
    existing.serving &&
    opts.renewBefore !== undefined &&
    fits(existing.serving, ca, wanted, new Date(now.getTime() + opts.renewBefore * DAY_MS));
  const serving =
    keep && existing.serving
      ? existing.serving
      : await issueServingCertificate(ca, {
          commonName: `${opts.service}.${opts.namespace}.svc`,
          ...wanted,
          days,
          now,
        });
  if (!keep) await writeCertificateSet(opts.out, existing.ca ? { serving } : { ca, serving });
  return {
    caBundle: caBundle(ca.certPem),
    issued: !keep,
    caCreated: !existing.ca,
    notAfter: describeCertificate(serving.certPem).notAfter,
  };
}

/**
 * For `npm start` on a fresh machine: a dev CA and a serving certificate for 127.0.0.1, ::1 and localhost in `dir`,
 * reused while they last more than a day; anything missing, unreadable or expiring is made anew.
 */
export async function ensureDevCertificates(
  dir: string,
  now: Date = new Date(),
): Promise<{ certFile: string; keyFile: string; caFile: string }> {
  const wanted = { dnsNames: ['localhost'], ips: ['127.0.0.1', '::1'] };
  const soon = new Date(now.getTime() + DAY_MS);
  let existing: CertificateSet = {};
  try {
    existing = await readCertificateSet(dir);
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'TLS_INVALID')) throw err;
  }
  const keptCa = existing.ca && describeCertificate(existing.ca.certPem).notAfter > soon ? existing.ca : undefined;
  const ca = keptCa ?? (await createCertificateAuthority({ commonName: 'hookkeeper-dev-ca', days: 365, now }));
  const keptServing = existing.serving && fits(existing.serving, ca, wanted, soon) ? existing.serving : undefined;
  const serving =
    keptServing ?? (await issueServingCertificate(ca, { commonName: 'localhost', ...wanted, days: 90, now }));
  await writeCertificateSet(dir, { ...(!keptCa && { ca }), ...(!keptServing && { serving }) });
  return {
    certFile: join(dir, CERT_FILES.tlsCert),
    keyFile: join(dir, CERT_FILES.tlsKey),
    caFile: join(dir, CERT_FILES.caCert),
  };
}

/** Whether a serving certificate is signed by `ca`, names exactly `wanted`, and is still valid at `until`. */
function fits(
  serving: CertKeyPem,
  ca: CertKeyPem,
  wanted: { dnsNames: string[]; ips: string[] },
  until: Date,
): boolean {
  const leaf = new X509Certificate(serving.certPem);
  const caCert = new X509Certificate(ca.certPem);
  if (!leaf.checkIssued(caCert) || !leaf.verify(caCert.publicKey)) return false;
  const have = describeCertificate(serving.certPem);
  if (have.notAfter <= until) return false;
  return (
    sameSet(
      have.dnsNames.map((n) => n.toLowerCase()),
      wanted.dnsNames.map((n) => n.toLowerCase()),
    ) && sameSet(have.ips.map(canonicalIp), wanted.ips.map(canonicalIp))
  );
}

async function readPair(certFile: string, keyFile: string): Promise<CertKeyPem | undefined> {
  const [certPem, keyPem] = await Promise.all([readOptional(certFile), readOptional(keyFile)]);
  if (certPem === undefined && keyPem === undefined) return undefined;
  if (certPem === undefined || keyPem === undefined) {
    throw new AppError(
      'TLS_INVALID',
      `${certPem === undefined ? certFile : keyFile} is missing beside ${certPem === undefined ? keyFile : certFile}`,
    );
  }
  let matches: boolean;
  try {
    matches = new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch (cause) {
    throw new AppError('TLS_INVALID', `${certFile} or ${keyFile} is not a PEM certificate or key`, { cause });
  }
  if (!matches) throw new AppError('TLS_INVALID', `${keyFile} is not the key of ${certFile}`);
  return { certPem, keyPem };
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AppError('TLS_INVALID', `cannot read ${file}`, { cause: err });
  }
}

async function existingFiles(dir: string): Promise<string[]> {
  const names = Object.values(CERT_FILES);
  const found = await Promise.all(
    names.map((n) =>
      stat(join(dir, n)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return names.filter((_, i) => found[i]);
}

/** Write-then-rename, so a reader (serve's file watcher, kubectl) never sees half a PEM. */
async function writeAtomic(file: string, content: string, mode: number): Promise<void> {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, content, { mode, flag: 'wx' });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

function checkName(flag: string, value: string): void {
  if (!DNS_LABEL.test(value))
    throw new AppError(
      'USAGE',
      `${flag} "${value}" is not a DNS label (lower-case letters, digits and '-', at most 63)`,
    );
}

function canonicalIp(ip: string): string {
  return isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

function sameSet(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
