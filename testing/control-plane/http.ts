// Minimal HTTPS calls for what @kubernetes/client-node does not cover: readiness endpoints and the webhook's probe.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawRequest {
  url: string;
  method?: string;
  /** PEM CA the server certificate must chain to (https only). */
  ca?: string;
  token?: string;
  body?: unknown;
  /** Of the JSON body; default application/json (a JSON patch or server-side apply names its own). */
  contentType?: string;
  timeoutMs?: number;
  /** More request headers (e.g. Impersonate-User); a list is sent as one header line per value (Impersonate-Group). */
  headers?: Readonly<Record<string, string | string[]>>;
}

export function rawRequest(req: RawRequest): Promise<RawResponse> {
  const url = new URL(req.url);
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const r = send(
      url,
      {
        method: req.method ?? 'GET',
        ...(url.protocol === 'https:' ? { ca: req.ca, rejectUnauthorized: true } : {}),
        headers: {
          accept: 'application/json',
          ...req.headers,
          ...(req.token ? { authorization: `Bearer ${req.token}` } : {}),
          ...(payload === undefined
            ? {}
            : { 'content-type': req.contentType ?? 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
        timeout: req.timeoutMs ?? 5_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`${req.method ?? 'GET'} ${req.url} timed out`)));
    r.on('error', reject);
    r.end(payload);
  });
}

/** POSTs an object exactly as given (no client-side model in between); fails unless the API server created it. */
export async function createRaw(server: string, ca: string, token: string, path: string, body: unknown): Promise<void> {
  const res = await rawRequest({ url: `${server}${path}`, method: 'POST', ca, token, body, timeoutMs: 30_000 });
  if (res.status !== 201) throw new Error(`POST ${path}: HTTP ${res.status}: ${res.body}`);
}
