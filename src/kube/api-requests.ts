// Plain GETs and POSTs to the Kubernetes API (ApiGet, ApiPost) with a ClusterAccess's credentials and a caller's
// AbortSignal: parent lookups must be abandoned when their budget ends, and the audit's list pages are parsed once
// (JSON.parse) over kept-alive connections. Not client-node's generated clients: they open a TLS connection per call
// (about 4 times the request's cost) and take a signal only through a per-call middleware (BENCHMARKS.md).
import http from 'node:http';
import https from 'node:https';
import { createGunzip } from 'node:zlib';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ParentKindRef } from '../core/policy.js';
import type { ParentRequest } from '../core/children.js';
import { isRecord } from '../core/guards.js';

export interface ApiResponse {
  status: number;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
}

/** GET of an API path ("/apis/kubevirt.io/v1/namespaces/vms/virtualmachines/testvm"); injected by tests. */
export type ApiGet = (path: string, signal: AbortSignal) => Promise<ApiResponse>;

function prefix(kind: ParentKindRef): string {
  // The core group lives under /api, every other group under /apis.
  return kind.apiVersion.includes('/') ? `/apis/${kind.apiVersion}` : `/api/${kind.apiVersion}`;
}

/** Every object of a kind, in all namespaces: what a cache lists and watches. */
export function collectionPath(kind: ParentKindRef): string {
  return `${prefix(kind)}/${kind.resource}`;
}

export function objectPath(req: ParentRequest): string {
  const ns = req.namespaced ? `/namespaces/${encodeURIComponent(req.namespace)}` : '';
  return `${prefix(req)}${ns}/${req.resource}/${encodeURIComponent(req.name)}`;
}

/** The API server's reason for a failed request: a Status object's message, else the status code. */
export function describeFailure(path: string, res: ApiResponse): string {
  const message = isRecord(res.body) && typeof res.body['message'] === 'string' ? `: ${res.body['message']}` : '';
  return `GET ${path}: HTTP ${res.status}${message}`;
}

/**
 * How to reach the API server, request by request: the seam between the GETs here and where credentials come from
 * (a kubeconfig read by client.ts or connect.ts).
 */
export interface ClusterAccess {
  /** https://host:port, no trailing slash. */
  server: string;
  /** Options for one request: TLS material and the Authorization header, fresh each time (rotated tokens, exec plugins). */
  requestOptions(): Promise<https.RequestOptions>;
  /** The cluster's proxy-url: requestOptions() supplies the proxy's agent, which must be used as it is. */
  proxied: boolean;
  /** Ask for gzip, as kubectl does, unless the kubeconfig's cluster says disable-compression. */
  compress: boolean;
}

/** client-node's KubeConfig as a ClusterAccess: applyToHTTPSOptions per request (which also makes a new agent each time). */
export function kubeConfigAccess(kc: KubeConfig): ClusterAccess {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  return {
    server: cluster.server.replace(/\/+$/, ''),
    async requestOptions() {
      const options: https.RequestOptions = {};
      await kc.applyToHTTPSOptions(options);
      return options;
    },
    proxied: Boolean(cluster.proxyUrl),
    compress: true,
  };
}

/** POST of a JSON body to an API path (a SubjectAccessReview); injected by tests. */
export type ApiPost = (path: string, body: unknown, signal: AbortSignal) => Promise<ApiResponse>;

function send(url: URL, options: https.RequestOptions, signal: AbortSignal, body?: unknown): Promise<ApiResponse> {
  const client = url.protocol === 'http:' ? http : https;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = {
    ...options.headers,
    accept: 'application/json',
    ...(payload === undefined
      ? {}
      : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
  };
  return new Promise<ApiResponse>((resolve, reject) => {
    const req = client.request(
      url,
      { ...options, method: payload === undefined ? 'GET' : 'POST', signal, headers },
      (res) => {
        // Only a request that offered gzip (pooledGet) gets it back.
        const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
        const chunks: Buffer[] = [];
        body.on('data', (chunk: Buffer) => chunks.push(chunk));
        body.on('error', reject);
        res.on('error', reject);
        body.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON (a proxy's error page): keep the text for the message
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** One request at a time, with requestOptions()'s agent (none: Node's global one; client-node's: new each time). */
export function accessGet(access: ClusterAccess): ApiGet {
  return async (path, signal) => send(new URL(access.server + path), await access.requestOptions(), signal);
}

export function kubeGet(kc: KubeConfig): ApiGet {
  return accessGet(kubeConfigAccess(kc));
}

export interface PooledGet {
  get: ApiGet;
  /** A POST over the same kept-alive connections. */
  post: ApiPost;
  /** Closes the kept connections; a GET after this opens new ones. */
  close(): void;
}

/**
 * GETs that share keep-alive connections, for a run of requests such as a list's pages (client-node's agents, which
 * kubeGet uses, open a TLS connection per request). Through a proxy, the proxy's agent is used as it is.
 */
export function pooledGet(access: ClusterAccess): PooledGet {
  let agent: http.Agent | undefined;
  const request = async (path: string, signal: AbortSignal, body?: unknown): Promise<ApiResponse> => {
    const url = new URL(access.server + path);
    const options = await access.requestOptions();
    if (!access.proxied) {
      agent ??=
        url.protocol === 'http:'
          ? new http.Agent({ keepAlive: true })
          : new https.Agent({
              keepAlive: true,
              ...(options.ca ? { ca: options.ca } : {}),
              ...(options.cert ? { cert: options.cert } : {}),
              ...(options.key ? { key: options.key } : {}),
              ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
              ...(options.servername ? { servername: options.servername } : {}),
            });
      options.agent = agent;
    }
    return send(
      url,
      access.compress ? { ...options, headers: { ...options.headers, 'accept-encoding': 'gzip' } } : options,
      signal,
      body,
    );
  };
  return {
    get: (path, signal) => request(path, signal),
    post: (path, body, signal) => request(path, signal, body),
    close() {
      agent?.destroy();
      agent = undefined;
    },
  };
}
