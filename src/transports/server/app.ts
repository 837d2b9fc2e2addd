// The HTTP surface as a plain request listener (no listen, no TLS), so tests drive it with supertest: it routes.
// /validate and /mutate take a lean path (one body read, one JSON.parse, one JSON.stringify): they sit in
// the API server's request path (admission-request.ts, review.ts, record.ts). Probes and metrics are three GET
// routes (probes.ts).
import type { Webhook } from '../../admission/handle.js';
import { envelopeCheck } from '../../admission/parse.js';
import { admission } from './admission-request.js';
import type { AppDeps, RequestListener } from './app-deps.js';
import { internalError } from './answer.js';
import { MAX_BODY_BYTES } from './body.js';
import { answerProbe } from './probes.js';

export type { AppDeps, RequestListener } from './app-deps.js';

const ROUTES: Readonly<Record<string, Webhook>> = { '/validate': 'validate', '/mutate': 'mutate' };

/** The path of a request target: the query dropped. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export function createApp(deps: AppDeps): RequestListener {
  const bodyLimit = deps.bodyLimit ?? MAX_BODY_BYTES;
  envelopeCheck(); // compiled now, so that no request pays for it
  return (req, res) => {
    // The API server appends ?timeout=10s: route on the path alone.
    const path = pathOf(req.url ?? '/');
    const webhook = ROUTES[path];
    if (webhook === undefined) {
      answerProbe(deps, req, res, path);
      return;
    }
    try {
      admission(deps, bodyLimit, webhook, req, res);
    } catch (fault) {
      internalError(deps, res, webhook, fault);
    }
  };
}
