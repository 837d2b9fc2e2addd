// The HTTP surface as a plain request listener (no listen, no TLS), so tests drive it with supertest.
// /validate and /mutate take a lean path (one body read, one JSON.parse, one JSON.stringify): they sit in
// the API server's request path. Probes and metrics are three GET routes, answered here too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handle, type Webhook } from '../admission/handle.js';
import { envelopeCheck, parseAdmissionReview } from '../admission/parse.js';
import { toAdmissionReview } from '../admission/response.js';
import { carrierFor } from '../core/carriers.js';
import { ownerLabel } from '../core/owner-label.js';
import type { Policy } from '../core/policy.js';
import type { GroupVersionKind, ReviewContext, ReviewInput } from '../core/types.js';
import type { Logger } from '../log.js';
import { BodyTooLarge, MAX_BODY_BYTES, readBody } from './body.js';
import type { Metrics } from './metrics.js';

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

/**
 * The metrics' kind label: a kind hookkeeper handles, else "other". The kind comes from the request, so any
 * client that reaches the port could otherwise mint label values without bound.
 */
function kindLabel(policy: Policy, gvk: GroupVersionKind): string {
  if (carrierFor(gvk)) return gvk.kind;
  return policy.children.some((r) => r.match.kinds.some((k) => k.group === gvk.group && k.kind === gvk.kind))
    ? gvk.kind
    : 'other';
}

/** The probe routes, as they were routed when express served them: any letter case, one trailing slash. */
const PROBE = /^\/(healthz|readyz|metrics)\/?$/i;

const ALL_ROUTES = ['POST /validate', 'POST /mutate', 'GET /healthz', 'GET /readyz', 'GET /metrics'];

/** The path of a request target: the query dropped. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** An absolute-form target's path (`GET https://host/healthz`), which the probes answer as express did. */
const originPath = (path: string): string => path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');

/** A text or JSON answer with its length; the body is left out for HEAD (the headers say what GET would send). */
function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(req.method === 'HEAD' ? undefined : text);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
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
function sendFault(res: ServerResponse, uid: string | undefined, fault: unknown): void {
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

export function createApp(deps: AppDeps): RequestListener {
  const bodyLimit = deps.bodyLimit ?? MAX_BODY_BYTES;
  envelopeCheck(); // compiled now, so that no request pays for it
  const text = 'text/plain; charset=utf-8';

  /** GET and HEAD of the probes and /metrics; anything else that is not a webhook is a 404 listing the routes. */
  function probes(req: IncomingMessage, res: ServerResponse, target: string): void {
    const path = originPath(target);
    const route = req.method === 'GET' || req.method === 'HEAD' ? PROBE.exec(path)?.[1]?.toLowerCase() : undefined;
    if (route === 'healthz') send(req, res, 200, text, 'ok');
    else if (route === 'readyz') {
      if (deps.ready()) send(req, res, 200, text, 'ok');
      else send(req, res, 503, text, 'not ready');
    } else if (route === 'metrics') {
      const { registry } = deps.metrics;
      registry
        .metrics()
        .then(
          (body) => send(req, res, 200, registry.contentType, body),
          (err: unknown) => {
            deps.logger.error({ err }, 'could not collect metrics');
            if (!res.headersSent) send(req, res, 500, text, 'could not collect metrics');
          },
        )
        // Never an unhandled rejection (it would end the process): a fault in answering is logged.
        .catch((fault: unknown) => deps.logger.error({ err: fault }, 'unhandled error in probe handler'));
    } else {
      deps.metrics.badRequests.inc({ reason: 'not_found' });
      const body = JSON.stringify({ error: `no route for ${req.method} ${path}`, routes: ALL_ROUTES });
      send(req, res, 404, 'application/json; charset=utf-8', body);
    }
  }

  type Refuse = (status: number, reason: string, body: Record<string, unknown>) => void;

  function admission(webhook: Webhook, req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    const refuse: Refuse = (status, reason, body) => {
      deps.metrics.badRequests.inc({ reason });
      deps.logger.warn({ status, reason, error: body['error'] }, 'refused admission request');
      sendJson(res, status, body);
    };
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      refuse(405, 'method', { error: `${req.method} not allowed: send POST with an AdmissionReview` });
      return;
    }
    // The API server always sends application/json for admission.k8s.io/v1.
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      req.resume();
      refuse(415, 'content_type', {
        error: `content-type must be application/json, got ${type === '' ? 'none' : JSON.stringify(type)}`,
      });
      return;
    }
    readBody(req, bodyLimit, (err, raw) => {
      if (err || !raw) {
        if (err instanceof BodyTooLarge) {
          res.setHeader('connection', 'close');
          refuse(413, 'too_large', { error: `request body exceeds the ${bodyLimit}-byte limit` });
        } else {
          deps.logger.debug({ err }, 'request body aborted');
          if (!res.headersSent) res.destroy();
        }
        return;
      }
      try {
        review(webhook, raw, res, started, refuse);
      } catch (fault) {
        internalError(res, webhook, fault);
      }
    });
  }

  /** Parses and judges one AdmissionReview and answers it: in this turn, unless the review needs parents looked up. */
  function review(webhook: Webhook, raw: Buffer, res: ServerResponse, started: bigint, refuse: Refuse): void {
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      refuse(400, 'not_json', { error: `request body is not JSON: ${(err as Error).message}` });
      return;
    }
    const parsed = parseAdmissionReview(body);
    if (!parsed.ok) {
      refuse(400, 'invalid_review', {
        error: parsed.error,
        problems: parsed.problems,
        ...(parsed.uid ? { uid: parsed.uid } : {}),
      });
      return;
    }

    const { uid, input } = parsed.review;
    // The request-scoped child is made only when a line is written: made for every request, it costs CPU even at
    // warn level, where no line is written (BENCHMARKS.md).
    let child: Logger | undefined;
    const log = (): Logger =>
      (child ??= deps.logger.child({
        uid,
        webhook,
        kind: `${input.kind.group}/${input.kind.kind}`,
        namespace: input.namespace,
        name: input.name,
        operation: input.operation,
        user: input.userInfo.username,
        dryRun: input.dryRun,
      }));

    const decide = (context: ReviewContext | undefined, gatherFailure?: unknown): void => {
      let out;
      let decisionLabel: string;
      let rules: string[] = [];
      let kind = 'other';
      let quiet = false;
      try {
        const policy = deps.policy();
        kind = kindLabel(policy, input.kind);
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the lookup's failure, as caught, into the fault path below
        if (gatherFailure !== undefined) throw gatherFailure;
        const outcome = handle(webhook, policy, context ? { ...input, context } : input);
        out = toAdmissionReview(uid, outcome.result);
        const { result } = outcome;
        decisionLabel = !result.allowed ? 'denied' : result.patch ? 'patched' : 'allowed';
        quiet =
          decisionLabel === 'allowed' &&
          result.warnings.length === 0 &&
          Object.keys(result.auditAnnotations).length === 0;
        const { denials, warnings } = outcome.decision;
        if (denials.length + warnings.length > 0) rules = [...new Set([...denials, ...warnings].map((v) => v.rule))];
        for (const v of denials) deps.metrics.violations.inc({ rule: v.rule, enforcement: 'deny' });
        for (const v of warnings) deps.metrics.violations.inc({ rule: v.rule, enforcement: 'warn' });
        // Owner labels bounded as src/core/owner-label.ts says: the owner comes from the request.
        const owner = (o: string): string => ownerLabel(policy, o, context?.ownership?.granted.has(o) ?? false);
        for (const n of outcome.decision.notices) {
          if (n.unverifiedOwner !== undefined) deps.metrics.unverifiedRemovals.inc({ owner: owner(n.unverifiedOwner) });
          for (const o of n.breakGlass?.owners ?? [])
            deps.metrics.breakGlass.inc({ action: n.breakGlass?.action, owner: owner(o) });
        }
        if (deps.logger.isLevelEnabled('debug')) {
          // The answer names a few violations (src/admission/limits.ts); the log keeps every one.
          log().debug(
            {
              object: input.object,
              oldObject: input.oldObject,
              patch: outcome.mutation.patch,
              denials,
              warnings,
              notices: outcome.decision.notices,
            },
            'admission bodies',
          );
        }
      } catch (err) {
        log().error({ err }, 'admission review failed');
        sendFault(res, uid, err);
        finish(kind, 'error');
        return;
      }
      sendJson(res, 200, out);
      const seconds = finish(kind, decisionLabel);
      // What someone may need to explain later (a denial, a warning, a patch) is logged at info; the allowed,
      // unchanged review, most of the traffic, at debug: it is counted anyway, and its line cost a tenth of the
      // throughput (BENCHMARKS.md).
      const level = quiet ? 'debug' : 'info';
      if (deps.logger.isLevelEnabled(level))
        log()[level](
          { decision: decisionLabel, rules, durationMs: Math.round(seconds * 1e6) / 1e3 },
          'admission decision',
        );
    };

    /** Observes the duration and counts the decision; returns the seconds taken. */
    const finish = (kind: string, decision: string): number => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.duration.observe({ webhook }, seconds);
      deps.metrics.requests.inc({ webhook, kind, operation: input.operation, decision });
      return seconds;
    };

    // Most reviews need no lookup: no promise, no wait.
    let gathering: ReviewContext | Promise<ReviewContext> | undefined;
    try {
      gathering = deps.gatherContext?.(input);
    } catch (err) {
      decide(undefined, err ?? new Error('parent lookup failed'));
      return;
    }
    if (!(gathering instanceof Promise)) {
      decide(gathering);
      return;
    }
    gathering
      .then(
        (context) => decide(context),
        (err: unknown) => decide(undefined, err ?? new Error('parent lookup failed')),
      )
      .catch((fault: unknown) => internalError(res, webhook, fault));
  }

  /** A bug in the handler itself, outside one review's evaluation: logged, and answered as a fault if nothing was sent yet. */
  function internalError(res: ServerResponse, webhook: Webhook, fault: unknown): void {
    deps.logger.error({ err: fault }, 'unhandled error in admission handler');
    if (res.headersSent) return;
    deps.metrics.requests.inc({ webhook, kind: 'other', operation: 'unknown', decision: 'error' });
    sendFault(res, undefined, fault);
  }

  return (req, res) => {
    // The API server appends ?timeout=10s: route on the path alone.
    const path = pathOf(req.url ?? '/');
    const webhook = ROUTES[path];
    if (webhook === undefined) {
      try {
        probes(req, res, path);
      } catch (fault) {
        deps.logger.error({ err: fault }, 'unhandled error in probe handler');
        if (!res.headersSent) send(req, res, 500, text, 'internal error');
      }
      return;
    }
    try {
      admission(webhook, req, res);
    } catch (fault) {
      internalError(res, webhook, fault);
    }
  };
}
