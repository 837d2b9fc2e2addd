// connect(): the ClusterAccess the audit lists through, from the kubeconfig. A kubeconfig file whose user holds a
// token or a client certificate is read here, without loading @kubernetes/client-node (whose import loads every
// generated API: BENCHMARKS.md); everything else (exec plugins, auth providers, impersonation, proxies, several
// KUBECONFIG files, in-cluster config) goes through client-node's KubeConfig.
import { readFile } from 'node:fs/promises';
import type https from 'node:https';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isRecord } from '../../core/guards.js';
import { parseYamlDocuments } from '../config/yaml.js';
import { AppError } from '../../errors.js';
import type { KubeConnection } from './client.js';
import { withDeadline } from './deadline.js';
import { clusterError, responseError } from './errors.js';
import { accessGet, kubeConfigAccess, type ClusterAccess } from './api-requests.js';
import { requireClusterSource, sourceFile } from './kubeconfig-source.js';

export interface ConnectOptions extends KubeConnection {
  env: Readonly<Record<string, string | undefined>>;
}

type Entry = Record<string, unknown>;

/** The user fields this reader understands; any other (exec, auth-provider, as, username...) is client-node's job. */
const SIMPLE_USER_FIELDS = new Set([
  'token',
  'tokenFile',
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
  'extensions',
]);
const SIMPLE_CLUSTER_FIELDS = new Set([
  'server',
  'certificate-authority',
  'certificate-authority-data',
  'insecure-skip-tls-verify',
  'tls-server-name',
  'disable-compression',
  'extensions',
]);

function named(doc: Entry, list: string, field: string, name: unknown): Entry | undefined {
  const entries = Array.isArray(doc[list]) ? (doc[list] as unknown[]) : [];
  const found = entries.find((e) => isRecord(e) && e['name'] === name);
  return isRecord(found) && isRecord(found[field]) ? found[field] : undefined;
}

/** A certificate or key given as a file (relative to the kubeconfig) or as base64 data, as kubectl reads them. */
async function material(entry: Entry, fileKey: string, base: string): Promise<Buffer | undefined> {
  const data = entry[`${fileKey}-data`];
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
  const file = entry[fileKey];
  if (typeof file !== 'string' || file === '') return undefined;
  return readFile(isAbsolute(file) ? file : resolve(base, file));
}

async function readSimple(file: string, options: ConnectOptions): Promise<ClusterAccess | undefined> {
  const where = options.kubeconfig ? ` ${options.kubeconfig}` : '';
  let doc: unknown;
  try {
    // Read as kubectl reads it (sigs.k8s.io/yaml): merge keys, YAML 1.1's booleans (insecure-skip-tls-verify: yes).
    const docs = parseYamlDocuments(await readFile(file, 'utf8'), file, { merge: true, kubectlScalars: true });
    if (docs.length > 1) throw new Error(`${file}: expected one YAML document, found ${docs.length}`);
    doc = docs[0]?.value;
  } catch (cause) {
    throw new AppError('USAGE', `cannot load kubeconfig${where}: ${(cause as Error).message}`, { cause });
  }
  if (!isRecord(doc)) return undefined;
  const contextName = options.context ?? doc['current-context'];
  const context = named(doc, 'contexts', 'context', contextName);
  if (options.context !== undefined && !context) {
    const names = (Array.isArray(doc['contexts']) ? doc['contexts'] : [])
      .map((c: unknown) => (isRecord(c) ? String(c['name']) : ''))
      .filter(Boolean);
    throw new AppError('USAGE', `--context ${options.context}: no such context (have: ${names.join(', ') || 'none'})`);
  }
  const cluster = context ? named(doc, 'clusters', 'cluster', context['cluster']) : undefined;
  if (!cluster || typeof cluster['server'] !== 'string')
    throw new AppError('USAGE', 'the kubeconfig has no current cluster: give --kubeconfig and --context');
  const user = named(doc, 'users', 'user', context?.['user']) ?? {};
  const skipTls = cluster['insecure-skip-tls-verify'] === true;
  // client-node refuses plain http without insecure-skip-tls-verify; let it say so.
  if (
    !Object.keys(cluster).every((k) => SIMPLE_CLUSTER_FIELDS.has(k)) ||
    !Object.keys(user).every((k) => SIMPLE_USER_FIELDS.has(k)) ||
    (cluster['server'].startsWith('http:') && !skipTls)
  )
    return undefined;

  const base = dirname(resolve(file));
  let tls: https.RequestOptions;
  try {
    const [ca, cert, key] = await Promise.all([
      material(cluster, 'certificate-authority', base),
      material(user, 'client-certificate', base),
      material(user, 'client-key', base),
    ]);
    tls = {
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      ...(skipTls ? { rejectUnauthorized: false } : {}),
      ...(typeof cluster['tls-server-name'] === 'string' ? { servername: cluster['tls-server-name'] } : {}),
    };
  } catch (cause) {
    throw new AppError('USAGE', `cannot load kubeconfig${where}: ${(cause as Error).message}`, { cause });
  }
  const token = typeof user['token'] === 'string' && user['token'] !== '' ? user['token'] : undefined;
  const tokenFile =
    typeof user['tokenFile'] === 'string' && user['tokenFile'] !== '' ? resolve(base, user['tokenFile']) : undefined;
  return {
    server: cluster['server'].replace(/\/+$/, ''),
    async requestOptions() {
      // A token file is read per request: projected service-account tokens rotate.
      const bearer = token ?? (tokenFile ? (await readFile(tokenFile, 'utf8')).trim() : undefined);
      return { ...tls, headers: bearer ? { Authorization: `Bearer ${bearer}` } : {} };
    },
    proxied: false,
    compress: cluster['disable-compression'] !== true,
  };
}

/** The cluster of --kubeconfig/--context (or kubectl's defaults), read here when it can be, else through client-node. */
export async function connect(options: ConnectOptions): Promise<ClusterAccess> {
  const file = sourceFile(requireClusterSource(options.kubeconfig, options.context, options.env));
  const simple = file ? await readSimple(file, options) : undefined;
  if (simple) return simple;
  const { loadKubeConfig } = await import('./client.js');
  return kubeConfigAccess(loadKubeConfig(options));
}

/** serviceAccountExists for the audit: 404 means gone; any other failure is a cluster error. */
export function serviceAccountLookup(
  access: ClusterAccess,
  options: { timeoutMs?: number } = {},
): (namespace: string, name: string) => Promise<boolean> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const get = accessGet(access);
  return async (namespace, name) => {
    const at = { server: access.server, action: `read service account ${namespace}/${name}` };
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}`;
    let res;
    try {
      res = await withDeadline(timeoutMs, (signal) => get(path, signal));
    } catch (err) {
      throw clusterError(err, at);
    }
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw responseError(res, at);
  };
}
