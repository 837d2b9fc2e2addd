// Rule child-owner-reference. Mutating: on CREATE a child gets an ownerReference to its parent and the rule's
// finalizer, idempotently, and never a second controller. Validating: a created child that still lacks them
// is refused, as is one controlled by another owner when the policy says onExistingController: deny.
import { forbidden, newPath, required } from '../../core/field-errors.js';
import { isRecord, ownValue, quote } from '../../core/guards.js';
import type { Policy } from '../../core/policy.js';
import type { KubeObject, Notice, ParentFact, ReviewInput, Violation } from '../../core/types.js';
import {
  type ChildBinding,
  childBindings,
  describeChild,
  describeParent,
  finalizersOf,
  findParentRef,
  ownerRefs,
} from '../children-bind.js';
import { type ChildFindings, type ChildMode, childMode, noFindings } from '../children-findings.js';
import type { ChildRuleModule } from '../context.js';

export const AUDIT_KEY_NON_CONTROLLER = 'child-non-controller-owner';

/** The parent fact when a reference may be set: the parent exists and is not a deleting parent the policy refuses. */
function usableParent(b: ChildBinding, fact: ParentFact | undefined): (ParentFact & { found: true }) | undefined {
  if (b.problem || !fact?.found) return undefined;
  return fact.deleting && b.rule.onDeletingParent === 'deny' ? undefined : fact;
}

/** Adds references and finalizers to `copy` (a clone of input.object); returns what changed. */
export function applyChildOwnerReferences(policy: Policy, input: ReviewInput, copy: KubeObject): string[] {
  if (input.operation !== 'CREATE' || policy.enforcement['child-owner-reference'] === 'off') return [];
  const meta = copy['metadata'];
  if (!isRecord(meta)) return [];
  const changes: string[] = [];
  for (const b of childBindings(policy, input, copy)) {
    const fact = usableParent(b, ownValue(input.context?.parents, b.key));
    const refs = ownerRefs(copy);
    if (!fact || !refs) continue;
    if (!findParentRef(refs, b, fact.uid)) {
      const other = refs.find((r) => r.controller);
      let controller = b.rule.controller;
      if (controller && other) {
        if (b.rule.onExistingController === 'deny') continue; // the validating webhook refuses the child
        controller = false;
      }
      if (!Array.isArray(meta['ownerReferences'])) meta['ownerReferences'] = [];
      (meta['ownerReferences'] as unknown[]).push({
        apiVersion: b.rule.parent.apiVersion,
        kind: b.rule.parent.kind,
        name: b.name,
        uid: fact.uid,
        controller,
        blockOwnerDeletion: b.rule.blockOwnerDeletion,
      });
      changes.push(
        `${b.rule.name}: added ${controller ? 'controller' : 'non-controller'} owner reference to ${describeParent(b)} (uid ${fact.uid})` +
          (controller === b.rule.controller ? '' : `: ${other?.kind} ${quote(other?.name)} already controls it`),
      );
    }
    const finalizers = finalizersOf(copy);
    if (b.rule.finalizer && finalizers && !finalizers.includes(b.rule.finalizer)) {
      if (!Array.isArray(meta['finalizers'])) meta['finalizers'] = [];
      (meta['finalizers'] as unknown[]).push(b.rule.finalizer);
      changes.push(`${b.rule.name}: added finalizer ${quote(b.rule.finalizer)}`);
    }
  }
  return changes;
}

export function childOwnerReference(policy: Policy, input: ReviewInput, mode: ChildMode): ChildFindings {
  const out = noFindings();
  const obj = input.object;
  if (!obj || (mode === 'admission' && input.operation !== 'CREATE')) return out;
  const refs = ownerRefs(obj) ?? [];
  const finalizers = finalizersOf(obj) ?? [];
  const child = describeChild(input, obj);
  for (const b of childBindings(policy, input, obj)) {
    if (b.problem) continue; // child-parent explains why there can be no parent
    const fact = ownValue(input.context?.parents, b.key);
    if (fact === undefined) {
      // Offline review has no facts to compare with; the audit still checks the names it can read.
      if (mode === 'admission') continue;
    } else if (!usableParent(b, fact) || (mode === 'audit' && fact.found && fact.deleting)) {
      continue; // child-parent reports a missing or deleting parent; a deleting parent's children are being cleaned up
    }
    const uid = fact?.found ? fact.uid : undefined;
    const where = `policy rule ${quote(b.rule.name)}`;
    const ref = findParentRef(refs, b, uid);
    const other = refs.find((r) => r.controller && r !== ref);
    if (!ref && b.rule.controller && other && b.rule.onExistingController === 'deny') {
      const path = String(newPath('metadata', 'ownerReferences').index(other.index));
      out.denials.push({
        rule: 'child-owner-reference',
        path,
        message: forbidden(
          path,
          `${child} is already controlled by ${other.kind} ${quote(other.name)}; ${where} would make ${describeParent(b)} its controller (onExistingController: deny)`,
        ).message,
        fix: `create the child without that controller reference, or set onExistingController: nonController (or controller: false) in ${where}`,
        key: `child-controller:${b.rule.name}:${other.kind}/${other.name}`,
      });
      continue;
    }
    if (!ref) {
      const refText = `{apiVersion: ${b.rule.parent.apiVersion}, kind: ${b.rule.parent.kind}, name: ${b.name}${uid ? `, uid: ${uid}` : ''}}`;
      out.denials.push({
        rule: 'child-owner-reference',
        path: 'metadata.ownerReferences',
        message: required(
          'metadata.ownerReferences',
          `${child} has no owner reference to its parent ${describeParent(b)} (${where}); hookkeeper's mutating webhook adds it on create`,
        ).message,
        fix: `add ${child}'s kind to the rules of hookkeeper's mutating webhook, or set ownerReferences: [${refText}]`,
        key: `child-reference:${b.rule.name}:${b.key}`,
      });
    } else if (mode === 'admission' && b.rule.controller && !ref.controller && other) {
      out.notices.push(
        nonControllerNotice(b, child, { apiVersion: other.apiVersion, kind: other.kind, name: other.name }, ref.uid),
      );
    }
    if (b.rule.finalizer && !finalizers.includes(b.rule.finalizer))
      out.denials.push(missingFinalizer(b, child, b.rule.finalizer));
  }
  return out;
}

function nonControllerNotice(
  b: ChildBinding,
  child: string,
  other: { apiVersion: string; kind: string; name: string },
  uid: string,
): Notice {
  return {
    rule: 'child-owner-reference',
    warning: `${describeParent(b)} is a non-controller owner: ${other.kind} ${quote(other.name)} already controls ${child} (rule ${quote(b.rule.name)})`,
    audit: {
      key: AUDIT_KEY_NON_CONTROLLER,
      value: JSON.stringify({
        rule: b.rule.name,
        parent: { apiVersion: b.rule.parent.apiVersion, kind: b.rule.parent.kind, name: b.name, uid },
        controller: other,
      }),
    },
  };
}

function missingFinalizer(b: ChildBinding, child: string, finalizer: string): Violation {
  return {
    rule: 'child-owner-reference',
    path: 'metadata.finalizers',
    message: required(
      'metadata.finalizers',
      `${child} lacks finalizer ${quote(finalizer)} of policy rule ${quote(b.rule.name)}; hookkeeper's mutating webhook adds it on create`,
    ).message,
    fix: `add ${child}'s kind to the rules of hookkeeper's mutating webhook, or add ${quote(finalizer)} to metadata.finalizers`,
    key: `child-finalizer-missing:${b.rule.name}:${finalizer}`,
  };
}

/** Where applyChildOwnerReferences writes: the only parts of the object the mutation copies for it. */
export const CHILD_WRITES: ReadonlyArray<readonly string[]> = [
  ['metadata', 'ownerReferences'],
  ['metadata', 'finalizers'],
];

export const childOwnerReferenceRule: ChildRuleModule<'child-owner-reference'> = {
  id: 'child-owner-reference',
  order: 130,
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'children',
  // At admission it judges CREATEs only.
  updateReads: () => ({ parts: [] }),
  facts: ['parents'],
  summary:
    "a child gets an ownerReference to its parent and the rule's finalizer on create; one lacking them is refused",
  validate: ({ policy, input }) => childOwnerReference(policy, input, childMode(input)),
  mutate: { writes: CHILD_WRITES, apply: ({ policy, input }, copy) => applyChildOwnerReferences(policy, input, copy) },
  native: {
    webhookOnly:
      "a child rule needs its parent's uid, which CEL cannot look up: native mode adds no ownerReference to children (run the webhook for child rules)",
  },
};
