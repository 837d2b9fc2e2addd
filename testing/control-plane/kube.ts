// Client-side helpers for scenarios: typed custom-object calls that also return the response's Warning headers,
// and a Rejection that says who refused a request (our webhook, the CRD schema, RBAC) and with what message.
import {
  ApiException,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { KubeObject } from '../../src/core/types.js';

export interface Resource {
  group: string;
  version: string;
  plural: string;
}

export const OPENSHIFT_MACHINES: Resource = { group: 'machine.openshift.io', version: 'v1beta1', plural: 'machines' };
export const OPENSHIFT_MACHINESETS: Resource = {
  group: 'machine.openshift.io',
  version: 'v1beta1',
  plural: 'machinesets',
};
export const CAPI_MACHINES: Resource = { group: 'cluster.x-k8s.io', version: 'v1beta1', plural: 'machines' };
/** Cluster API Clusters, whose upgrade hooks are annotations (served by upstream's CRD set only). */
export const CAPI_CLUSTERS: Resource = { group: 'cluster.x-k8s.io', version: 'v1beta2', plural: 'clusters' };

/**
 * The validating webhook names in webhook-config/base; the API server quotes them in denials and call failures.
 * UPDATEs go to the fail-closed one, CREATEs to the fail-open one.
 */
export const WEBHOOK_NAME = 'machines.hookkeeper.io';
export const CREATE_WEBHOOK_NAME = 'machine-creates.hookkeeper.io';
export const DENIAL_PREFIX = `admission webhook "${WEBHOOK_NAME}" denied the request: `;
export const CREATE_DENIAL_PREFIX = `admission webhook "${CREATE_WEBHOOK_NAME}" denied the request: `;

/** Whether a GET found its object: a 404 is an answer, not an error. */
export async function found(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return true;
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) return false;
    throw err;
  }
}

export interface Written {
  object: KubeObject;
  /** Warning header texts (RFC 7234 299 warnings), as kubectl would print them. */
  warnings: string[];
}

export interface PatchOp {
  op: 'add' | 'remove' | 'replace' | 'test';
  path: string;
  value?: unknown;
}

export interface WriteOptions {
  dryRun?: boolean;
}

/**
 * One identity's view of one resource. The typed API's *WithHttpInfo calls expose response headers, and with
 * them the API server's Warning headers (node-fetch joins repeated headers with ", ").
 */
export class ResourceClient {
  private readonly api: CustomObjectsApi;

  constructor(
    kc: KubeConfig,
    private readonly resource: Resource,
  ) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  async create(namespace: string, body: KubeObject, options: WriteOptions = {}): Promise<Written> {
    const res = await this.api.createNamespacedCustomObjectWithHttpInfo({
      ...this.resource,
      namespace,
      body,
      ...dryRun(options),
    });
    return { object: res.data as KubeObject, warnings: parseWarnings(res.headers['warning']) };
  }

  async get(namespace: string, name: string): Promise<KubeObject> {
    return (await this.api.getNamespacedCustomObject({ ...this.resource, namespace, name })) as KubeObject;
  }

  /** Whether the object exists (a 404 is an answer, not an error). */
  exists(namespace: string, name: string): Promise<boolean> {
    return found(() => this.get(namespace, name));
  }

  async replace(namespace: string, body: KubeObject, options: WriteOptions = {}): Promise<Written> {
    const name = String((body['metadata'] as { name?: unknown } | undefined)?.name);
    const res = await this.api.replaceNamespacedCustomObjectWithHttpInfo({
      ...this.resource,
      namespace,
      name,
      body,
      ...dryRun(options),
    });
    return { object: res.data as KubeObject, warnings: parseWarnings(res.headers['warning']) };
  }

  /** RFC 6902 JSON patch (the client's default patch type for custom objects). */
  async patch(namespace: string, name: string, ops: readonly PatchOp[], options: WriteOptions = {}): Promise<Written> {
    const res = await this.api.patchNamespacedCustomObjectWithHttpInfo({
      ...this.resource,
      namespace,
      name,
      body: ops,
      ...dryRun(options),
    });
    return { object: res.data as KubeObject, warnings: parseWarnings(res.headers['warning']) };
  }

  /** RFC 7386 merge patch, as `kubectl patch --type merge` sends it (`{"metadata":{"finalizers":null}}`). */
  async mergePatch(namespace: string, name: string, body: object, options: WriteOptions = {}): Promise<Written> {
    const res = await this.api.patchNamespacedCustomObjectWithHttpInfo(
      { ...this.resource, namespace, name, body, ...dryRun(options) },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    return { object: res.data as KubeObject, warnings: parseWarnings(res.headers['warning']) };
  }

  async delete(namespace: string, name: string): Promise<void> {
    await this.api.deleteNamespacedCustomObject({ ...this.resource, namespace, name });
  }
}

function dryRun(options: WriteOptions): { dryRun?: string } {
  return options.dryRun ? { dryRun: 'All' } : {};
}

/** `299 - "text"` entries, as the API server writes them (text escaped like a Go quoted string). */
export function parseWarnings(header: string | undefined): string[] {
  if (!header) return [];
  const out: string[] = [];
  for (const m of header.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)) out.push((m[1] ?? '').replace(/\\(.)/g, '$1'));
  return out;
}

/** Who refused a request, told apart by the API server's own wording ('policy': a ValidatingAdmissionPolicy). */
export type Rejecter = 'webhook' | 'policy' | 'webhook-unreachable' | 'schema' | 'rbac' | 'other';

export interface Rejection {
  by: Rejecter;
  /** HTTP status code. */
  code: number;
  reason: string;
  message: string;
  /** The refusal after the API server's prefix, for a webhook or policy; else the whole message. */
  text: string;
  warnings: string[];
}

/** How the API server words a denial by one of our webhooks, and by a ValidatingAdmissionPolicy (dispatcher.go). */
const WEBHOOK_DENIAL = /^admission webhook "[^"]+\.hookkeeper\.io" denied the request: /;
const POLICY_DENIAL = /^.* is forbidden: ValidatingAdmissionPolicy '[^']+' with binding '[^']+' denied request: /s;
/** A ValidatingAdmissionPolicy binding's Warn action. */
const POLICY_WARNING = /^Validation failed for ValidatingAdmissionPolicy '[^']+' with binding '[^']+': /;

/**
 * The warnings a client got, with a policy's prefix taken off, once each: in both modes a break-glass removal is
 * warned by the policy and by the webhook in the same words.
 */
export function warningTexts(warnings: readonly string[]): string[] {
  return [...new Set(warnings.map((w) => w.replace(POLICY_WARNING, '')))].sort();
}

interface StatusBody {
  kind?: string;
  reason?: string;
  message?: string;
}

export function toRejection(err: unknown): Rejection {
  if (!(err instanceof ApiException)) throw err;
  let status: StatusBody = {};
  try {
    status =
      typeof err.body === 'string'
        ? (JSON.parse(err.body) as StatusBody)
        : ((err.body as StatusBody | undefined) ?? {});
  } catch {
    status = { message: String(err.body) };
  }
  const message = status.message ?? '';
  const reason = status.reason ?? '';
  let by: Rejecter = 'other';
  let text = message;
  const webhook = WEBHOOK_DENIAL.exec(message);
  const policy = POLICY_DENIAL.exec(message);
  // Any of our webhooks: the Machine ones above and the child-resource ones some scenarios register.
  if (webhook) {
    by = 'webhook';
    text = message.slice(webhook[0].length);
  } else if (policy) {
    by = 'policy';
    text = message.slice(policy[0].length);
  } else if (message.includes(`failed calling webhook "${WEBHOOK_NAME}"`)) by = 'webhook-unreachable';
  else if (reason === 'Invalid' && / is invalid: /.test(message)) by = 'schema';
  else if (err.code === 403 && /^[^:]+ is forbidden: User ".*" cannot /.test(message)) by = 'rbac';
  const headers = err.headers as Record<string, string | undefined>;
  return { by, code: err.code, reason, message, text, warnings: parseWarnings(headers['warning']) };
}

/** Runs a request that must be refused and returns how it was refused; fails if it succeeds. */
export async function rejected(request: () => Promise<unknown>): Promise<Rejection> {
  try {
    await request();
  } catch (err) {
    return toRejection(err);
  }
  throw new Error('the request was accepted, but it should have been refused');
}
