// The cluster figures' client: raw HTTPS to the harness's kube-apiserver as its admin (no client model in between that
// could drop a field it does not know), discovery for objects of any kind, and the bench's Machines.
import { Agent, request } from 'node:https';
import type { KubeObject } from '../src/core/types.js';
import type { ControlPlane } from '../testing/control-plane/control-plane.js';
import type { IdentityName } from '../testing/control-plane/identities.js';
import { manifest } from './validate-cli.js';

export const MACHINES = '/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines';

export class Api {
  private readonly agent: Agent;
  private readonly discovered = new Map<string, Array<{ name: string; kind: string; namespaced: boolean }>>();

  constructor(
    private readonly plane: ControlPlane,
    private readonly identity: IdentityName = 'admin',
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 32, ca: plane.caPem });
  }

  call(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; body: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.plane.server}${path}`,
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.plane.identities[this.identity].token}`,
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async expect(status: number, method: string, path: string, body?: unknown, contentType?: string): Promise<void> {
    const res = await this.call(method, path, body, contentType);
    if (res.status !== status)
      throw new Error(`${method} ${path}: HTTP ${res.status} (wanted ${status}): ${res.body.slice(0, 500)}`);
  }

  /** GET and parse; throws unless 200. */
  async get<T>(path: string): Promise<T> {
    const res = await this.call('GET', path);
    if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}: ${res.body.slice(0, 500)}`);
    return JSON.parse(res.body) as T;
  }

  /**
   * The collection path of an object, found by discovery as kubectl finds it (apiVersion + kind -> resource and
   * scope): the object's own path is this plus /NAME.
   */
  async collectionPath(o: KubeObject): Promise<string> {
    const apiVersion = String(o['apiVersion']);
    const kind = String(o['kind']);
    const groupVersion = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let resources = this.discovered.get(groupVersion);
    if (!resources) {
      const res = await this.call('GET', groupVersion);
      if (res.status !== 200)
        throw new Error(`the API server serves no ${apiVersion} (GET ${groupVersion}: HTTP ${res.status})`);
      resources = (JSON.parse(res.body) as { resources: Array<{ name: string; kind: string; namespaced: boolean }> })
        .resources;
      this.discovered.set(groupVersion, resources);
    }
    const found = resources.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!found) throw new Error(`the API server serves no ${kind} in ${apiVersion}`);
    const namespace = (o['metadata'] as { namespace?: string } | undefined)?.namespace;
    if (found.namespaced && !namespace) throw new Error(`${kind} is namespaced, but the object has no namespace`);
    return `${groupVersion}${found.namespaced ? `/namespaces/${namespace}` : ''}/${found.name}`;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The bench's Machine number i, named PREFIX-i. */
export function named(i: number, prefix: string): KubeObject {
  const m = manifest(i);
  (m['metadata'] as Record<string, unknown>)['name'] = `${prefix}-${i}`;
  return m;
}

/** Runs `fn` over 0..n-1 with `width` in flight. */
export async function inParallel(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}
