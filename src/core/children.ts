// Child resources: which parents a request needs looked up (for transports), and the three child rules run
// for any kind a child rule selects, hook carrier or not. Parent facts arrive in ReviewInput.context.parents.
import type { ParentKindRef, Policy } from './policy.js';
import { childBindings, hasChildRules } from './rules/children-bind.js';
import { childFinalizer } from './rules/children-finalizer.js';
import { type ChildFindings, type ChildMode, noFindings } from './rules/children-findings.js';
import { applyChildOwnerReferences, childOwnerReference } from './rules/children-owner-reference.js';
import { childParent } from './rules/children-parent.js';
import type { KubeObject, ReviewInput, RuleId } from './types.js';

export { hasChildRules, parentKey } from './rules/children-bind.js';

/** One parent a transport should look up; its fact goes into context.parents[key]. */
export interface ParentRequest extends ParentKindRef {
  key: string;
  /** '' for a cluster-scoped parent. */
  namespace: string;
  name: string;
}

const CHILD_RULES: ReadonlyArray<[RuleId, (policy: Policy, input: ReviewInput, mode: ChildMode) => ChildFindings]> = [
  ['child-owner-reference', childOwnerReference],
  ['child-parent', childParent],
  ['child-finalizer', childFinalizer],
];

/** Parents to look up before reviewing this input: only CREATE of a child (or a stored child, in audit) pays. */
export function parentRequests(policy: Policy, input: ReviewInput, options: { mode?: ChildMode } = {}): ParentRequest[] {
  const obj = input.object;
  if (!obj || (options.mode !== 'audit' && input.operation !== 'CREATE') || !hasChildRules(policy, input)) return [];
  if (policy.enforcement['child-owner-reference'] === 'off' && policy.enforcement['child-parent'] === 'off') return [];
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
  for (const { parent: { apiVersion, kind, resource, namespaced } } of policy.children) {
    const id = `${apiVersion}/${kind}`;
    if (!out.has(id)) out.set(id, { apiVersion, kind, resource, namespaced });
  }
  return [...out.values()];
}

/** The validating child rules, each under its enforcement (`warn` turns its denials into warnings). */
export function evaluateChildren(policy: Policy, input: ReviewInput, mode: ChildMode = 'admission'): ChildFindings {
  const out = noFindings();
  if (!hasChildRules(policy, input)) return out;
  for (const [id, rule] of CHILD_RULES) {
    const enforcement = policy.enforcement[id];
    if (enforcement === 'off') continue;
    const found = rule(policy, input, mode);
    // Loops, not push(...list): a long list would not fit in a call's arguments.
    const denials = enforcement === 'warn' ? out.warnings : out.denials;
    for (const v of found.denials) denials.push(v);
    for (const v of found.warnings) out.warnings.push(v);
    for (const n of found.notices) out.notices.push(n);
  }
  return out;
}

/** Where applyChildren writes: the only parts of the object the mutation copies for it (patch.ts copyForWrites). */
export const CHILD_WRITES: ReadonlyArray<readonly string[]> = [['metadata', 'ownerReferences'], ['metadata', 'finalizers']];

/** The mutating child rule on `copy` (a clone of input.object); returns what changed. */
export function applyChildren(policy: Policy, input: ReviewInput, copy: KubeObject): string[] {
  return hasChildRules(policy, input) ? applyChildOwnerReferences(policy, input, copy) : [];
}
