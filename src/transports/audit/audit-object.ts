// One stored object through the engine: judged as a CREATE by a neutral user (source audit), with the facts of the
// audit's own rules (stuck deletions: the clock; orphaned owners: service accounts; unprotected owners: grants).
import { wellFormed, type Hook, type HookCarrier } from '../../core/carriers.js';
import { evaluate } from '../../core/engine.js';
import { withImpliedOwner } from '../../core/implied-owner.js';
import type { Policy } from '../../core/policy.js';
import type { GroupVersionKind, KubeObject, ReviewContext, ReviewInput, UserInfo } from '../../core/types.js';
import type { OwnerGrants } from '../../infrastructure/kube/owner-grants.js';
import { explainStuck } from './explain.js';
import { deletionFact } from './findings.js';
import { auditOwnership, noteOwners, type SeenOwners } from './owner-grants.js';
import type { AuditFinding, AuditObjectRef } from './report.js';
import { auditFindings } from './summary.js';

/** Stored objects are judged as if created by nobody in particular: rules about who removes a hook have no request to judge. */
export const AUDIT_USER: UserInfo = Object.freeze({ username: 'hookkeeper-audit', groups: [] });

/** What the run knows once, for every object. */
export interface AuditFacts {
  policy: Policy;
  carriers: readonly HookCarrier[];
  /** The audit's clock, at its start. */
  nowMs: number;
  stuckAfterMs: number;
  /** Absent: orphaned owners are not looked for. */
  accounts: ((hooks: readonly Hook[]) => Promise<Record<string, boolean>>) | undefined;
  /** Absent: no owner is judged unprotected. */
  grants: OwnerGrants | undefined;
  /** The owners seen so far, for the notes on who may act for each. */
  seenOwners: SeenOwners;
}

/** One object's facts; hooks only when a fact needs them. */
export interface ObjectFacts {
  context: ReviewContext | undefined;
  hooks: Hook[];
}

/**
 * The facts of a hook-carrying object: a promise only when its hooks' service accounts must be looked up (most
 * objects carry no hook: no lookup, and no await that would yield once per object).
 */
export function objectFacts(
  run: AuditFacts,
  obj: KubeObject,
  carrier: HookCarrier | undefined,
  namespace: string | undefined,
): ObjectFacts | Promise<ObjectFacts> {
  if (!carrier) return { context: undefined, hooks: [] };
  const context: ReviewContext = {};
  const deletion = deletionFact(obj, run.nowMs, run.stuckAfterMs);
  if (deletion) context.deletion = deletion;
  // Implied owners in place (an empty value under a key the policy names), as the rules judge them.
  const hooks =
    run.accounts || run.grants
      ? wellFormed(carrier.read(obj).hooks).map((h) => withImpliedOwner(run.policy, carrier, h))
      : [];
  const withOwners = (): ObjectFacts => {
    if (run.grants) {
      context.ownership = auditOwnership(run.grants, hooks, namespace);
      noteOwners(run.seenOwners, hooks, namespace);
    }
    return { context, hooks };
  };
  if (!run.accounts || hooks.length === 0) return withOwners();
  return run.accounts(hooks).then((accounts) => {
    context.serviceAccounts = accounts;
    return withOwners();
  });
}

/** The object's findings; a stuck deletion's say what it waits for (src/transports/audit/explain.ts). */
export function judgeObject(
  run: AuditFacts,
  obj: KubeObject,
  ref: AuditObjectRef,
  kind: GroupVersionKind,
  facts: ObjectFacts,
): AuditFinding[] {
  const input: ReviewInput = {
    operation: 'CREATE',
    kind,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    name: ref.name,
    object: obj,
    oldObject: null,
    userInfo: AUDIT_USER,
    dryRun: false,
    source: 'audit',
  };
  if (facts.context) input.context = facts.context;
  const decision = evaluate(run.policy, input, { carriers: run.carriers });
  const found = auditFindings(decision.denials, decision.warnings, ref);
  if (found.some((f) => f.rule === 'stuck-deletion')) {
    const explained = { policy: run.policy, grants: run.grants, context: facts.context ?? {}, nowMs: run.nowMs };
    explainStuck(found, obj, facts.hooks, explained);
  }
  return found;
}
