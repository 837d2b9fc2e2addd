// Plain GETs, POSTs and watches to the Kubernetes API (ApiGet, ApiPost, ApiStream) with a ClusterAccess's credentials
// and a caller's AbortSignal: parent lookups must be abandoned when their budget ends, a silent watch at its deadline,
// and the audit's list pages are parsed once (JSON.parse) over kept-alive connections. Not client-node's generated clients: they open a TLS connection per call
// (about 4 times the request's cost) and take a signal only through a per-call middleware (BENCHMARKS.md).
import http from 'node:http';
import https from 'node:https';
import { createGunzip } from 'node:zlib';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ParentKindRef } from '../../core/policy.js';
import type { ParentRequest } from '../../core/children.js';
import { isRecord } from '../../core/guards.js';

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
        body.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: parseBody(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** What a watch's reader is told: the API server answered 200 (the watch is open), then each line of the body. */
export interface StreamHandlers {
  open(): void;
  line(text: string): void;
}

/**
 * GET of a watch (`?watch=true`), read line by line as it arrives: resolves when the API server ends a 200 (its
 * timeoutSeconds), or with any other answer read whole; rejects on a transport error or at once when `signal` aborts
 * (the caller's deadline on a silent connection), destroying the connection. Injected by tests.
 */
export type ApiStream = (path: string, signal: AbortSignal, on: StreamHandlers) => Promise<ApiResponse>;

function stream(
  url: URL,
  options: https.RequestOptions,
  signal: AbortSignal,
  on: StreamHandlers,
): Promise<ApiResponse> {
  const client = url.protocol === 'http:' ? http : https;
  return new Promise<ApiResponse>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as unknown);
      return;
    }
    // Not gzip (not offered): a watch's events must reach the cache as they are written, not when a block fills.
    const req = client.request(url, {
      ...options,
      method: 'GET',
      headers: { ...options.headers, accept: 'application/json' },
    });
    const abort = (): void => {
      reject(signal.reason as unknown);
      req.destroy();
    };
    signal.addEventListener('abort', abort, { once: true });
    const settle = (): void => signal.removeEventListener('abort', abort);
    req.on('error', (err) => {
      settle();
      reject(err);
    });
    req.on('response', (res) => {
      res.on('error', (err) => {
        settle();
        reject(err);
      });
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          settle();
          resolve({ status: res.statusCode ?? 0, body: parseBody(Buffer.concat(chunks).toString('utf8')) });
        });
        return;
      }
      on.open();
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        // One event is one object (etcd keeps at most 1.5 MiB); a line past this is not from an API server.
        if (rest.length > MAX_LINE_CHARS)
          req.destroy(new Error(`a watch line longer than ${MAX_LINE_CHARS} characters`));
        for (const line of lines) if (line.trim() !== '') on.line(line);
      });
      // A body cut short (closed before its end) is an error, not the API server's end of the watch.
      res.on('close', () => {
        settle();
        if (!res.complete) reject(new Error('the watch connection closed mid-stream'));
      });
      res.on('end', () => {
        settle();
        if (rest.trim() !== '') on.line(rest);
        resolve({ status: 200, body: undefined });
      });
    });
    req.end();
  });
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // not JSON (a proxy's error page): keep the text for the message
  }
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
  /** A watch over them: it holds its connection while open, and hands it back when the API server ends it. */
  stream: ApiStream;
  /** Closes the kept connections; a GET after this opens new ones. */
  close(): void;
}

/** TLS material as text, to notice a change (PEM strings or Buffers, or lists of them). */
function pem(v: unknown): string {
  if (Array.isArray(v)) return v.map(pem).join('\n');
  return typeof v === 'string' || Buffer.isBuffer(v) ? v.toString() : '';
}

/**
 * GETs that share keep-alive connections, for a run of requests such as a list's pages or a cache's lists and
 * watches (client-node's agents, which kubeGet uses, open a TLS connection per request). Through a proxy, the proxy's agent is used as it is.
 */
export function pooledGet(access: ClusterAccess): PooledGet {
  let agent: http.Agent | undefined;
  let material = '';
  const prepare = async (path: string): Promise<{ url: URL; options: https.RequestOptions }> => {
    const url = new URL(access.server + path);
    const options = await access.requestOptions();
    if (!access.proxied) {
      // A client certificate rotated (an exec plugin's) needs new connections: a long-lived pool (a watch's) drops
      // its old ones, open watches included, which resume on the new.
      const fresh = [options.ca, options.cert, options.key].map(pem).join('\0');
      if (agent && fresh !== material) {
        agent.destroy();
        agent = undefined;
      }
      material = fresh;
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
    return { url, options };
  };
  const request = async (path: string, signal: AbortSignal, body?: unknown): Promise<ApiResponse> => {
    const { url, options } = await prepare(path);
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
    stream: async (path, signal, on) => {
      const { url, options } = await prepare(path);
      return stream(url, options, signal, on);
    },
    close() {
      agent?.destroy();
      agent = undefined;
    },
  };
}
