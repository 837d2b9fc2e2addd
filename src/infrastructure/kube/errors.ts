// API failures -> AppError CLUSTER with a message that says what failed and why (exit 3), or CrdNotInstalled.
import { isRecord } from '../../core/guards.js';
import { AppError } from '../../errors.js';
import { RequestTimeout } from './deadline.js';
import type { ApiResponse } from './api-requests.js';
import type { ResourceRef } from '../../core/resources.js';
import { CrdNotInstalled } from './types.js';

/** The Status message the API server put in an error body, when there is one. */
function statusMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() === '' ? undefined : body.trim().slice(0, 300);
  return isRecord(body) && typeof body['message'] === 'string' ? body['message'] : undefined;
}

export interface Attempt {
  /** The API server URL, for messages. */
  server: string;
  /** What was being done: "list machines.machine.openshift.io". */
  action: string;
  /** For a list: a 404 means the resource's CRD is not installed. */
  resource?: ResourceRef;
}

/** The API server answered, but not with what was asked for (res.status is not 2xx). */
export function responseError(res: ApiResponse, at: Attempt): AppError {
  const code = res.status;
  const detail = statusMessage(res.body);
  const cause = new Error(`HTTP ${code}${detail ? `: ${detail}` : ''}`);
  if (code === 404 && at.resource) return new CrdNotInstalled(at.resource, { cause });
  const why =
    code === 401
      ? `unauthorized (401): ${at.server} rejected the credentials; log in again or check the token in the kubeconfig`
      : code === 403
        ? `forbidden (403): ${detail ?? 'the user lacks RBAC permission'}`
        : code === 410
          ? 'the list changed too much while paging (410 Gone: the continue token expired); run the audit again'
          : `the API server answered ${code}${detail ? `: ${detail}` : ''}`;
  return new AppError('CLUSTER', `cannot ${at.action}: ${why}`, { cause });
}

/** client-node's refusal of a plain-http server, said as hookkeeper says things. */
function ownWords(message: string): string {
  return /HTTP protocol is not allowed/.test(message)
    ? 'the kubeconfig names a plain http:// server; hookkeeper connects over https (or set insecure-skip-tls-verify: true on that cluster)'
    : message;
}

/** The request never got an answer: connection refused, TLS failure, no answer within its deadline. */
export function clusterError(err: unknown, at: Attempt): AppError {
  if (err instanceof AppError) return err;
  const message =
    err instanceof RequestTimeout
      ? `no answer within ${err.ms / 1000} s`
      : err instanceof Error
        ? ownWords(err.message)
        : String(err);
  return new AppError('CLUSTER', `cannot ${at.action}: cannot reach the API server at ${at.server}: ${message}`, {
    cause: err,
  });
}
