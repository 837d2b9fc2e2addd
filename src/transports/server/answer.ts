// Writing an answer: text or JSON with its length, and the HTTP 500 a fault is answered with.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Webhook } from '../../admission/handle.js';
import type { AppDeps } from './app-deps.js';

/** A text or JSON answer with its length; the body is left out for HEAD (the headers say what GET would send). */
export function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(req.method === 'HEAD' ? undefined : text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A fault is answered HTTP 500, never inside a well-formed AdmissionReview: the API server takes every
 * AdmissionReview with allowed: false as a rejection, and applies the webhook's failurePolicy only when the call
 * itself fails (transport error, non-2xx status, malformed answer), so Ignore admits and Fail refuses. The body is
 * a metav1.Status because the API server then quotes its message in the error it returns: "failed calling webhook
 * "NAME": failed to call webhook: hookkeeper could not evaluate request UID: FAULT" (for any other body it says
 * "unknown"). uid is an extra field it ignores.
 */
export function sendFault(res: ServerResponse, uid: string | undefined, fault: unknown): void {
  const cause = fault instanceof Error ? fault.message : String(fault);
  const message = `hookkeeper could not evaluate ${uid === undefined ? 'the request' : `request ${uid}`}: ${cause}`;
  sendJson(res, 500, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    reason: 'InternalError',
    code: 500,
    message,
    ...(uid === undefined ? {} : { uid }),
  });
}

/** A bug in the handler itself, outside one review's evaluation: logged, and answered as a fault if nothing was sent yet. */
export function internalError(deps: AppDeps, res: ServerResponse, webhook: Webhook, fault: unknown): void {
  deps.logger.error({ err: fault }, 'unhandled error in admission handler');
  if (res.headersSent) return;
  deps.metrics.requests.inc({ webhook, kind: 'other', operation: 'unknown', decision: 'error' });
  sendFault(res, undefined, fault);
}
