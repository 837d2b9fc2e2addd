// What one admission request leaves behind: its metrics (requests, duration, violations, notices) and its log lines.
import type { ServerResponse } from 'node:http';
import type { HandledReview, Webhook } from '../../admission/handle.js';
import type { AdmissionReviewOut } from '../../admission/response.js';
import { carrierFor } from '../../core/carriers.js';
import { ownerLabel } from '../../core/owner-label.js';
import type { Policy } from '../../core/policy.js';
import type { Decision, GroupVersionKind, ReviewContext, ReviewInput } from '../../core/types.js';
import type { Logger } from '../../infrastructure/log.js';
import type { AppDeps } from './app-deps.js';
import type { Metrics } from './metrics.js';

/** One parsed admission request in flight: what its steps share. */
export interface Exchange {
  readonly deps: AppDeps;
  readonly webhook: Webhook;
  readonly res: ServerResponse;
  /** process.hrtime.bigint() when the request arrived. */
  readonly started: bigint;
  readonly uid: string;
  readonly input: ReviewInput;
  /** The request-scoped logger, once log() has made it. */
  child: Logger | undefined;
}

/** What the policy made of a review: the answer, and what its metrics and log line say. */
export interface Judged {
  out: AdmissionReviewOut;
  decision: 'allowed' | 'denied' | 'patched';
  rules: string[];
  /** Allowed, unchanged, with nothing to say: logged at debug. */
  quiet: boolean;
}

// The request-scoped child is made only when a line is written: made for every request, it costs CPU even at
// warn level, where no line is written (BENCHMARKS.md).
export function log(x: Exchange): Logger {
  const { input } = x;
  return (x.child ??= x.deps.logger.child({
    uid: x.uid,
    webhook: x.webhook,
    kind: `${input.kind.group}/${input.kind.kind}`,
    namespace: input.namespace,
    name: input.name,
    operation: input.operation,
    user: input.userInfo.username,
    dryRun: input.dryRun,
  }));
}

/**
 * The metrics' kind label: a kind hookkeeper handles, else "other". The kind comes from the request, so any
 * client that reaches the port could otherwise mint label values without bound.
 */
export function kindLabel(policy: Policy, gvk: GroupVersionKind): string {
  if (carrierFor(gvk)) return gvk.kind;
  return policy.children.some((r) => r.match.kinds.some((k) => k.group === gvk.group && k.kind === gvk.kind))
    ? gvk.kind
    : 'other';
}

/** Counts the decision's violations and its notices (unverified removals, break-glass). */
export function countDecision(
  metrics: Metrics,
  policy: Policy,
  decision: Decision,
  context: ReviewContext | undefined,
): void {
  for (const v of decision.denials) metrics.violations.inc({ rule: v.rule, enforcement: 'deny' });
  for (const v of decision.warnings) metrics.violations.inc({ rule: v.rule, enforcement: 'warn' });
  // Owner labels bounded as src/core/owner-label.ts says: the owner comes from the request.
  const owner = (o: string): string => ownerLabel(policy, o, context?.ownership?.granted.has(o) ?? false);
  for (const n of decision.notices) {
    if (n.unverifiedOwner !== undefined) metrics.unverifiedRemovals.inc({ owner: owner(n.unverifiedOwner) });
    for (const o of n.breakGlass?.owners ?? [])
      metrics.breakGlass.inc({ action: n.breakGlass?.action, owner: owner(o) });
  }
}

/** The review's bodies at debug: the answer names a few violations (src/admission/limits.ts); the log keeps every one. */
export function logBodies(x: Exchange, outcome: HandledReview): void {
  log(x).debug(
    {
      object: x.input.object,
      oldObject: x.input.oldObject,
      patch: outcome.mutation.patch,
      denials: outcome.decision.denials,
      warnings: outcome.decision.warnings,
      notices: outcome.decision.notices,
    },
    'admission bodies',
  );
}

/** Observes the duration and counts the decision; returns the seconds taken. */
export function finish(x: Exchange, kind: string, decision: string): number {
  const seconds = Number(process.hrtime.bigint() - x.started) / 1e9;
  x.deps.metrics.duration.observe({ webhook: x.webhook }, seconds);
  x.deps.metrics.requests.inc({ webhook: x.webhook, kind, operation: x.input.operation, decision });
  return seconds;
}

/**
 * What someone may need to explain later (a denial, a warning, a patch) is logged at info; the allowed,
 * unchanged review, most of the traffic, at debug: it is counted anyway, and its line cost a tenth of the
 * throughput (BENCHMARKS.md).
 */
export function logDecision(x: Exchange, judged: Judged, seconds: number): void {
  const level = judged.quiet ? 'debug' : 'info';
  if (x.deps.logger.isLevelEnabled(level))
    log(x)[level](
      { decision: judged.decision, rules: judged.rules, durationMs: Math.round(seconds * 1e6) / 1e3 },
      'admission decision',
    );
}
