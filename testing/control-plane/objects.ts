// ObjectClient: one identity's view of any namespaced resource, core (Pods, ConfigMaps, Services) or custom, over
// raw HTTPS: objects exactly as the API server returns them (no client model in between), its Warning headers,
// and refusals thrown as ApiException so that rejected() says who refused them.
import { ApiException } from '@kubernetes/client-node';
import type { KubeObject } from '../../src/core/types.js';
import type { ControlPlane } from './control-plane.js';
import { rawRequest, type RawResponse } from './http.js';
import type { IdentityName } from './identities.js';
import { found, parseWarnings, type PatchOp, type Resource, type Written, type WriteOptions } from './kube.js';

export const PODS: Resource = { group: '', version: 'v1', plural: 'pods' };
export const CONFIG_MAPS: Resource = { group: '', version: 'v1', plural: 'configmaps' };
export const SERVICES: Resource = { group: '', version: 'v1', plural: 'services' };

/** /api/v1 for the core group, /apis/GROUP/VERSION for the others. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** Node reads header bytes as latin1; the API server sends warnings in UTF-8 (e.g. the "…" of a shortened warning). */
export function flatHeaders(headers: RawResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v !== undefined) out[k] = Buffer.from(Array.isArray(v) ? v.join(', ') : v, 'latin1').toString('utf8');
  }
  return out;
}

export class ObjectClient {
  constructor(
    private readonly plane: ControlPlane,
    private readonly as: IdentityName,
    private readonly resource: Resource,
  ) {}

  private async send(
    method: string,
    namespace: string,
    name: string | undefined,
    options: WriteOptions & { body?: unknown; contentType?: string } = {},
  ): Promise<{ object: KubeObject; warnings: string[] }> {
    const { group, version, plural } = this.resource;
    const path = `${groupVersionPath(group, version)}/namespaces/${namespace}/${plural}${name === undefined ? '' : `/${name}`}${options.dryRun ? '?dryRun=All' : ''}`;
    const res = await rawRequest({
      url: `${this.plane.server}${path}`,
      method,
      ca: this.plane.caPem,
      token: this.plane.identities[this.as].token,
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.contentType ? { contentType: options.contentType } : {}),
      timeoutMs: 30_000,
    });
    const headers = flatHeaders(res.headers);
    if (res.status < 200 || res.status > 299)
      throw new ApiException(res.status, `${method} ${path}: HTTP ${res.status}`, res.body, headers);
    return { object: JSON.parse(res.body) as KubeObject, warnings: parseWarnings(headers['warning']) };
  }

  create(namespace: string, body: KubeObject, options: WriteOptions = {}): Promise<Written> {
    return this.send('POST', namespace, undefined, { ...options, body });
  }

  async get(namespace: string, name: string): Promise<KubeObject> {
    return (await this.send('GET', namespace, name)).object;
  }

  /** Whether the object exists (a 404 is an answer, not an error). */
  exists(namespace: string, name: string): Promise<boolean> {
    return found(() => this.get(namespace, name));
  }

  /** RFC 6902 JSON patch. */
  patch(namespace: string, name: string, ops: readonly PatchOp[], options: WriteOptions = {}): Promise<Written> {
    return this.send('PATCH', namespace, name, { ...options, body: ops, contentType: 'application/json-patch+json' });
  }

  /** The object as the API server answers the DELETE: still there (with deletionTimestamp) while finalizers hold it. */
  delete(namespace: string, name: string): Promise<Written> {
    return this.send('DELETE', namespace, name);
  }
}
