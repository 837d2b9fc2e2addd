// Rule child-parent: a child's parent must be able to own it (Kubernetes' scope rule), exist (onMissingParent)
// and not be deleting (onDeletingParent), judged from the facts the transport looked up.
import {
  type FieldError,
  forbidden,
  internalError,
  invalid,
  newPath,
  notFound,
  OMIT_VALUE,
} from '../../core/field-errors.js';
import { ownValue, quote } from '../../core/guards.js';
import type { ParentAction, Policy } from '../../core/policy.js';
import type { ReviewInput, Violation } from '../../core/types.js';
import {
  type ChildBinding,
  childBindings,
  describeChild,
  describeParent,
  apiGroupOf,
  ownerRefs,
} from '../children-bind.js';
import { type ChildFindings, type ChildMode, childMode, noFindings } from '../children-findings.js';
import type { ChildRuleModule } from '../context.js';

function file(out: ChildFindings, action: ParentAction, v: Violation): void {
  if (action === 'deny') out.denials.push(v);
  else if (action === 'warn') out.warnings.push(v);
}

function violation(b: ChildBinding, err: Pick<FieldError, 'field' | 'message'>, fix: string, check: string): Violation {
  return {
    rule: 'child-parent',
    path: err.field,
    message: err.message,
    fix,
    key: `child-parent:${b.rule.name}:${check}:${b.key}`,
  };
}

export function childParent(policy: Policy, input: ReviewInput, mode: ChildMode): ChildFindings {
  const out = noFindings();
  const obj = input.object;
  if (!obj || (mode === 'admission' && input.operation !== 'CREATE')) return out;
  for (const b of childBindings(policy, input, obj)) {
    const { rule } = b;
    const where = `policy rule ${quote(rule.name)}`;
    const missing = rule.onMissingParent;
    if (b.problem === 'scope') {
      // Not a policy choice: the API server's garbage collector can never resolve such an owner.
      out.denials.push(
        violation(
          b,
          invalid(
            'metadata.ownerReferences',
            `${rule.parent.apiVersion}, Kind=${rule.parent.kind}`,
            `cluster-scoped ${describeChild(input, obj)} cannot be owned by namespaced ${rule.parent.kind} ${quote(b.name)}: a cluster-scoped object may only have cluster-scoped owners (${where})`,
          ),
          `limit ${where} to namespaced kinds in match.kinds, or set parent.namespaced: false if ${rule.parent.kind} is cluster-scoped`,
          'scope',
        ),
      );
      continue;
    }
    if (b.problem === 'name') {
      file(
        out,
        missing,
        violation(
          b,
          invalid(
            b.source,
            b.name,
            `names no ${rule.parent.kind}: an object name is at most 253 characters, without "/" or "%", and not "." or ".." (${where}: onMissingParent ${missing})`,
          ),
          `set ${b.source} to the name of the child's ${rule.parent.kind}`,
          'name',
        ),
      );
      continue;
    }
    const fact = ownValue(input.context?.parents, b.key);
    if (fact === undefined) continue; // offline: existence cannot be known
    if (!fact.found) {
      if (fact.reason === 'NotFound') {
        file(
          out,
          missing,
          violation(
            b,
            notFound(
              b.source,
              OMIT_VALUE,
              `parent ${describeParent(b)} does not exist (${where}: onMissingParent ${missing})`,
            ),
            `create ${describeParent(b)} first, or correct ${b.source}`,
            'missing',
          ),
        );
      } else {
        // The parent could not be verified: even `allow` says so, since the child goes without its owner reference.
        const detail = `parent ${describeParent(b)}: ${fact.message}; no owner reference was added (${where}: onMissingParent ${missing})`;
        // "Timeout" is no field error type of apimachinery's: hookkeeper's own word for a lookup out of time.
        const err =
          fact.reason === 'Timeout'
            ? { field: b.source, message: `${b.source}: Timeout: lookup timed out for ${detail}` }
            : internalError(b.source, `lookup failed for ${detail}`);
        file(
          out,
          missing === 'allow' ? 'warn' : missing,
          violation(
            b,
            err,
            'retry when the Kubernetes API answers; hookkeeper needs get, list and watch on the parent kind',
            fact.reason,
          ),
        );
      }
      continue;
    }
    if (fact.deleting && mode === 'admission') {
      file(
        out,
        rule.onDeletingParent,
        violation(
          b,
          forbidden(
            b.source,
            `parent ${describeParent(b)} is being deleted, so a new child would be orphaned or collected at once (${where}: onDeletingParent ${rule.onDeletingParent})`,
          ),
          `create the child for the parent that replaces ${describeParent(b)}`,
          'deleting',
        ),
      );
    }
    const stale = (ownerRefs(obj) ?? []).find(
      (r) =>
        apiGroupOf(r.apiVersion) === apiGroupOf(rule.parent.apiVersion) &&
        r.kind === rule.parent.kind &&
        r.name === b.name &&
        r.uid !== fact.uid,
    );
    if (stale) {
      out.denials.push(
        violation(
          b,
          invalid(
            newPath('metadata', 'ownerReferences').index(stale.index).child('uid'),
            stale.uid,
            `parent ${describeParent(b)} has uid ${quote(fact.uid)}; the garbage collector deletes a child whose owner no longer exists`,
          ),
          `reference uid ${fact.uid}, or leave the reference out and let hookkeeper add it`,
          'uid',
        ),
      );
    }
  }
  return out;
}

export const childParentRule: ChildRuleModule<'child-parent'> = {
  id: 'child-parent',
  order: 140,
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'children',
  // At admission it judges CREATEs only.
  updateReads: () => ({ parts: [] }),
  facts: ['parents'],
  summary: "a child's parent can own it, exists (onMissingParent) and is not deleting (onDeletingParent)",
  validate: ({ policy, input }) => childParent(policy, input, childMode(input)),
  native: {
    webhookOnly:
      'a child rule needs its parent looked up, which CEL cannot do: native mode neither refuses a child whose parent is missing or deleting nor warns about it (run the webhook for child rules)',
  },
};
