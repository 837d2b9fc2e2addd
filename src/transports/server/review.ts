// One parsed AdmissionReview judged and answered: the context the transport gathers, the policy's decision, the
// answer, then its metrics and log line. In this turn, unless the review needs parents looked up.
import { handle } from '../../admission/handle.js';
import { toAdmissionReview } from '../../admission/response.js';
import type { Policy } from '../../core/policy.js';
import type { ReviewContext } from '../../core/types.js';
import { internalError, sendFault, sendJson } from './answer.js';
import { countDecision, finish, kindLabel, log, logBodies, logDecision, type Exchange, type Judged } from './record.js';

export function review(x: Exchange): void {
  // Most reviews need no lookup: no promise, no wait.
  let gathering: ReviewContext | Promise<ReviewContext> | undefined;
  try {
    gathering = x.deps.gatherContext?.(x.input);
  } catch (err) {
    decide(x, undefined, err ?? new Error('parent lookup failed'));
    return;
  }
  if (!(gathering instanceof Promise)) {
    decide(x, gathering);
    return;
  }
  gathering
    .then(
      (context) => decide(x, context),
      (err: unknown) => decide(x, undefined, err ?? new Error('parent lookup failed')),
    )
    .catch((fault: unknown) => internalError(x.deps, x.res, x.webhook, fault));
}

/** Judges the review and answers it; a failed lookup or a fault in judging is answered as a fault. */
function decide(x: Exchange, context: ReviewContext | undefined, gatherFailure?: unknown): void {
  let judged: Judged;
  let kind = 'other';
  try {
    const policy = x.deps.policy();
    kind = kindLabel(policy, x.input.kind);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the lookup's failure, as caught, into the fault path below
    if (gatherFailure !== undefined) throw gatherFailure;
    judged = judge(x, policy, context);
  } catch (err) {
    log(x).error({ err }, 'admission review failed');
    sendFault(x.res, x.uid, err);
    finish(x, kind, 'error');
    return;
  }
  sendJson(x.res, 200, judged.out);
  logDecision(x, judged, finish(x, kind, judged.decision));
}

/** The policy's decision on the review, with its violations and notices counted and its bodies logged at debug. */
function judge(x: Exchange, policy: Policy, context: ReviewContext | undefined): Judged {
  const { input } = x;
  const outcome = handle(x.webhook, policy, context ? { ...input, context } : input);
  const out = toAdmissionReview(x.uid, outcome.result);
  const { result } = outcome;
  const decision = !result.allowed ? 'denied' : result.patch ? 'patched' : 'allowed';
  const quiet =
    decision === 'allowed' && result.warnings.length === 0 && Object.keys(result.auditAnnotations).length === 0;
  const { denials, warnings } = outcome.decision;
  const rules = denials.length + warnings.length > 0 ? [...new Set([...denials, ...warnings].map((v) => v.rule))] : [];
  countDecision(x.deps.metrics, policy, outcome.decision, context);
  if (x.deps.logger.isLevelEnabled('debug')) logBodies(x, outcome);
  return { out, decision, rules, quiet };
}
