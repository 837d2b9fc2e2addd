// One GET against the Kubernetes API with the kubeconfig's credentials and a caller's AbortSignal, which the
// generated @kubernetes/client-node clients do not take: parent lookups must be abandoned when their budget ends.
import http from 'node:http';
import https from 'node:https';
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

export function kubeGet(kc: KubeConfig): ApiGet {
  return async (path, signal) => {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    // Credentials are applied per request so rotated service-account tokens and exec plugins are honoured.
    const opts: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const url = new URL(cluster.server.replace(/\/+$/, '') + path);
    const client = url.protocol === 'http:' ? http : https;
    return new Promise<ApiResponse>((resolve, reject) => {
      const req = client.request(url, { ...opts, method: 'GET', signal, headers: { ...opts.headers, accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON (a proxy's error page): keep the text for the message
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on('error', reject);
      req.end();
    });
  };
}
