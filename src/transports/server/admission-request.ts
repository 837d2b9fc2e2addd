// Reading an admission request: the method and content type checked, the body read within its limit, parsed as
// JSON and as an AdmissionReview; what fails a check is refused (4xx) and counted, the rest is reviewed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Webhook } from '../../admission/handle.js';
import { parseAdmissionReview } from '../../admission/parse.js';
import type { AppDeps } from './app-deps.js';
import { internalError, sendJson } from './answer.js';
import { BodyTooLarge, readBody } from './body.js';
import { review } from './review.js';

/** Answers a request the webhook will not review: counted by reason, logged at warn. */
function refuse(
  deps: AppDeps,
  res: ServerResponse,
  status: number,
  reason: string,
  body: Record<string, unknown>,
): void {
  deps.metrics.badRequests.inc({ reason });
  deps.logger.warn({ status, reason, error: body['error'] }, 'refused admission request');
  sendJson(res, status, body);
}

export function admission(
  deps: AppDeps,
  bodyLimit: number,
  webhook: Webhook,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const started = process.hrtime.bigint();
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    refuse(deps, res, 405, 'method', { error: `${req.method} not allowed: send POST with an AdmissionReview` });
    return;
  }
  // The API server always sends application/json for admission.k8s.io/v1.
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    refuse(deps, res, 415, 'content_type', {
      error: `content-type must be application/json, got ${type === '' ? 'none' : JSON.stringify(type)}`,
    });
    return;
  }
  readBody(req, bodyLimit, (err, raw) => {
    if (err || !raw) {
      if (err instanceof BodyTooLarge) {
        res.setHeader('connection', 'close');
        refuse(deps, res, 413, 'too_large', { error: `request body exceeds the ${bodyLimit}-byte limit` });
      } else {
        deps.logger.debug({ err }, 'request body aborted');
        if (!res.headersSent) res.destroy();
      }
      return;
    }
    try {
      parseAndReview(deps, webhook, raw, res, started);
    } catch (fault) {
      internalError(deps, res, webhook, fault);
    }
  });
}

/** Parses one AdmissionReview and, when it is one, has it reviewed and answered. */
function parseAndReview(deps: AppDeps, webhook: Webhook, raw: Buffer, res: ServerResponse, started: bigint): void {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    refuse(deps, res, 400, 'not_json', { error: `request body is not JSON: ${(err as Error).message}` });
    return;
  }
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) {
    refuse(deps, res, 400, 'invalid_review', {
      error: parsed.error,
      problems: parsed.problems,
      ...(parsed.uid ? { uid: parsed.uid } : {}),
    });
    return;
  }
  review({ deps, webhook, res, started, uid: parsed.review.uid, input: parsed.review.input, child: undefined });
}
