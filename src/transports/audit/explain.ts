// The audit's stuck deletions carry the same explanation `hookkeeper explain` prints (src/core/explain): where the
// deletion waits, the hook's owner, its protection, who may remove it and the safe next step, from the facts the
// audit already holds (its clock, RBAC grants, the owners' service accounts). The Node and controller health are
// not read per object here: `hookkeeper explain` reads them for one Machine.
import { explainMachine } from '../../core/explain/explain.js';
import type { ExplainFacts, GrantSubjectFact } from '../../core/explain/model.js';
import type { Hook } from '../../core/carriers.js';
import type { Policy } from '../../core/policy.js';
import type { KubeObject, ReviewContext } from '../../core/types.js';
import type { OwnerGrants } from '../../infrastructure/kube/owner-grants.js';
import type { AuditFinding } from './report.js';

const NOT_READ = { status: 'unknown', reason: 'not read by the audit: hookkeeper explain reads it' } as const;

function auditFacts(
  hooks: readonly Hook[],
  namespace: string | undefined,
  grants: OwnerGrants | undefined,
  context: ReviewContext,
  nowMs: number,
): ExplainFacts {
  const byOwner: Record<string, GrantSubjectFact[]> = {};
  if (grants) for (const h of hooks) byOwner[h.owner] ??= grants.subjectsFor(h.owner, namespace);
  return {
    source: 'cluster',
    nowMs,
    grants: grants ? { status: 'known', byOwner } : { status: 'unknown', reason: 'the audit did not list RBAC grants' },
    serviceAccounts: { status: 'known', found: context.serviceAccounts ?? {} },
    node: NOT_READ,
    clusterOperators: {},
  };
}

/** Adds the explanation of its hook to each stuck-deletion finding of one object (in place). */
export function explainStuck(
  found: AuditFinding[],
  object: KubeObject,
  hooks: readonly Hook[],
  deps: { policy: Policy; grants: OwnerGrants | undefined; context: ReviewContext; nowMs: number },
): void {
  const stuck = found.filter((f) => f.rule === 'stuck-deletion');
  if (stuck.length === 0) return;
  const ns = stuck[0]?.object.namespace;
  const explanation = explainMachine({
    object,
    policy: deps.policy,
    facts: auditFacts(hooks, ns, deps.grants, deps.context, deps.nowMs),
  });
  const m = explanation.machine;
  const command = `hookkeeper explain ${m.resource}/${m.name}${m.namespace ? ` -n ${m.namespace}` : ''}`;
  for (const f of stuck) {
    const hook = explanation.hooks.find((h) => h.path === f.path);
    if (!hook) continue;
    f.explanation = {
      ...(explanation.deletion.waitingAt ? { waitingAt: explanation.deletion.waitingAt } : {}),
      hook,
      explain: command,
    };
  }
}
