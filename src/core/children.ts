// Child resources: which parents a request needs looked up (for transports). The child rules themselves are
// registered modules (src/core/registry.ts); parent facts arrive in ReviewInput.context.parents.
import type { ParentKindRef, Policy } from './policy.js';
import { rulesNeeding } from './registry.js';
import { childBindings, hasChildRules } from '../rules/children-bind.js';
import { isRecord } from './guards.js';
import type { ParentFact, ReviewInput } from './types.js';

export { hasChildRules, parentKey } from '../rules/children-bind.js';

/** One parent a transport should look up; its fact goes into context.parents[key]. */
export interface ParentRequest extends ParentKindRef {
  key: string;
  /** '' for a cluster-scoped parent. */
  namespace: string;
  name: string;
}

/** The rules that read parent facts: with all of them off, nothing is looked up. */
const PARENT_RULES = rulesNeeding('parents');

/** Parents to look up before reviewing this input: only CREATE of a child (or a stored child, in audit) pays. */
export function parentRequests(policy: Policy, input: ReviewInput): ParentRequest[] {
  const obj = input.object;
  if (!obj || (input.source !== 'audit' && input.operation !== 'CREATE') || !hasChildRules(policy, input)) return [];
  if (PARENT_RULES.every((id) => policy.enforcement[id] === 'off')) return [];
  const out = new Map<string, ParentRequest>();
  for (const b of childBindings(policy, input, obj)) {
    if (b.problem || out.has(b.key)) continue;
    const { apiVersion, kind, resource, namespaced } = b.rule.parent;
    out.set(b.key, { key: b.key, apiVersion, kind, resource, namespaced, namespace: b.parentNamespace, name: b.name });
  }
  return [...out.values()];
}

/** Every parent kind the policy's child rules name, once each: what a transport watches. */
export function parentKinds(policy: Policy): ParentKindRef[] {
  const out = new Map<string, ParentKindRef>();
  for (const {
    parent: { apiVersion, kind, resource, namespaced },
  } of policy.children) {
    const id = `${apiVersion}/${kind}`;
    if (!out.has(id)) out.set(id, { apiVersion, kind, resource, namespaced });
  }
  return [...out.values()];
}

/** The fact a parent object gives a request for it: its uid and whether it is deleting (serve's lookup, a test's). */
export function parentFactOf(obj: unknown, req: ParentRequest): ParentFact {
  const meta = isRecord(obj) && isRecord(obj['metadata']) ? obj['metadata'] : {};
  const uid = meta['uid'];
  if (typeof uid !== 'string' || uid === '')
    return { found: false, reason: 'Error', message: `${req.kind} ${req.name} has no metadata.uid` };
  const ts = meta['deletionTimestamp'];
  return { found: true, uid, deleting: typeof ts === 'string' && ts !== '', namespaced: req.namespaced };
}
