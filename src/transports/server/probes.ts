// The GET routes beside the webhooks: /healthz, /readyz and /metrics, and the 404 that lists every route.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppDeps } from './app-deps.js';
import { send } from './answer.js';

const TEXT = 'text/plain; charset=utf-8';

/** The probe routes, as they were routed when express served them: any letter case, one trailing slash. */
const PROBE = /^\/(healthz|readyz|metrics)\/?$/i;

const ALL_ROUTES = ['POST /validate', 'POST /mutate', 'GET /healthz', 'GET /readyz', 'GET /metrics'];

/** An absolute-form target's path (`GET https://host/healthz`), which the probes answer as express did. */
const originPath = (path: string): string => path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');

/** Answers a request that is not for a webhook; a fault in doing so is logged and answered 500. */
export function answerProbe(deps: AppDeps, req: IncomingMessage, res: ServerResponse, target: string): void {
  try {
    probes(deps, req, res, target);
  } catch (fault) {
    deps.logger.error({ err: fault }, 'unhandled error in probe handler');
    if (!res.headersSent) send(req, res, 500, TEXT, 'internal error');
  }
}

/** GET and HEAD of the probes and /metrics; anything else that is not a webhook is a 404 listing the routes. */
function probes(deps: AppDeps, req: IncomingMessage, res: ServerResponse, target: string): void {
  const path = originPath(target);
  const route = req.method === 'GET' || req.method === 'HEAD' ? PROBE.exec(path)?.[1]?.toLowerCase() : undefined;
  if (route === 'healthz') send(req, res, 200, TEXT, 'ok');
  else if (route === 'readyz') {
    if (deps.ready()) send(req, res, 200, TEXT, 'ok');
    else send(req, res, 503, TEXT, 'not ready');
  } else if (route === 'metrics') metrics(deps, req, res);
  else {
    deps.metrics.badRequests.inc({ reason: 'not_found' });
    const body = JSON.stringify({ error: `no route for ${req.method} ${path}`, routes: ALL_ROUTES });
    send(req, res, 404, 'application/json; charset=utf-8', body);
  }
}

function metrics(deps: AppDeps, req: IncomingMessage, res: ServerResponse): void {
  const { registry } = deps.metrics;
  registry
    .metrics()
    .then(
      (body) => send(req, res, 200, registry.contentType, body),
      (err: unknown) => {
        deps.logger.error({ err }, 'could not collect metrics');
        if (!res.headersSent) send(req, res, 500, TEXT, 'could not collect metrics');
      },
    )
    // Never an unhandled rejection (it would end the process): a fault in answering is logged.
    .catch((fault: unknown) => deps.logger.error({ err: fault }, 'unhandled error in probe handler'));
}
