// The HTTP surface as a plain request listener (no listen, no TLS), so tests drive it with supertest: it routes.
// /validate and /mutate take a lean path (one body read, one JSON.parse, one JSON.stringify): they sit in
// the API server's request path (admission-request.ts, review.ts, record.ts). Probes and metrics are three GET
// routes (probes.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Webhook } from '../admission/handle.js';
import { envelopeCheck } from '../admission/parse.js';
import type { Policy } from '../core/policy.js';
import type { ReviewContext, ReviewInput } from '../core/types.js';
import type { Logger } from '../log.js';
import { admission } from './admission-request.js';
import { internalError } from './answer.js';
import { MAX_BODY_BYTES } from './body.js';
import type { Metrics } from './metrics.js';
import { answerProbe } from './probes.js';

export interface AppDeps {
  /** The policy in force; a getter so hot reload swaps it between requests. */
  policy: () => Policy;
  logger: Logger;
  metrics: Metrics;
  /** True once policy and TLS are loaded (and, in serve, while not shutting down). */
  ready: () => boolean;
  /**
   * Cluster facts some rules need (child resources' parents, hook owners' grants); looked up by the transport.
   * A value when known from memory, a promise when it must be asked for, undefined when none is needed.
   */
  gatherContext?: (input: ReviewInput) => ReviewContext | Promise<ReviewContext> | undefined;
  bodyLimit?: number;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

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
