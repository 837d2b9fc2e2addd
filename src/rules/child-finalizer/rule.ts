// Rule child-finalizer: a finalizer hookkeeper manages on children may only be removed by the identities registered
// for the rule's finalizerRemovers (the parent's controller); break-glass may, with a warning and an audit entry.
import { forbidden } from '../../core/field-errors.js';
import { quote } from '../../core/guards.js';
import { actsFor, isBreakGlass } from '../../core/identity.js';
import { describeIdentities, type OwnerIdentities, type Policy } from '../../core/policy.js';
import type { ReviewInput } from '../../core/types.js';
import { breakGlassText, NO_IDENTITY_REGISTERED } from '../../core/messages/ownership.js';
import { describeChild, finalizersOf } from '../children-bind.js';
import { type ChildFindings, type ChildMode, childMode, noFindings } from '../children-findings.js';
import type { ChildRuleModule } from '../context.js';

export const AUDIT_KEY_BREAK_GLASS_FINALIZER = 'break-glass-finalizer-removal';

export function childFinalizer(policy: Policy, input: ReviewInput, mode: ChildMode): ChildFindings {
  const out = noFindings();
  const { object, oldObject, userInfo: user } = input;
  if (mode !== 'admission' || input.operation !== 'UPDATE' || !object || !oldObject) return out;
  const after = new Set(finalizersOf(object) ?? []);
  const removed = (finalizersOf(oldObject) ?? []).filter((f) => !after.has(f));
  if (removed.length === 0) return out;

  // Guarded by kind and finalizer alone: relabelling a child first must not free its finalizer.
  const removers = new Map<string, Set<string>>();
  for (const rule of policy.children) {
    if (!rule.finalizer || !removed.includes(rule.finalizer)) continue;
    if (!rule.match.kinds.some((k) => k.group === input.kind.group && k.kind === input.kind.kind)) continue;
    const set = removers.get(rule.finalizer) ?? new Set<string>();
    for (const r of rule.finalizerRemovers) set.add(r);
    removers.set(rule.finalizer, set);
  }

  const child = describeChild(input, oldObject);
  for (const [finalizer, keys] of removers) {
    const ids = [...keys].flatMap((k): OwnerIdentities[] =>
      Object.hasOwn(policy.owners, k) ? [policy.owners[k] as OwnerIdentities] : [],
    );
    if (ids.some((id) => actsFor(user, id))) continue;
    if (isBreakGlass(user, policy)) {
      out.notices.push({
        rule: 'child-finalizer',
        warning: `break-glass: ${user.username} may remove finalizer ${finalizer} of ${child}; audited`,
        audit: {
          key: AUDIT_KEY_BREAK_GLASS_FINALIZER,
          value: JSON.stringify({ finalizer, kind: input.kind.kind, name: input.name ?? '', user: user.username }),
        },
      });
      continue;
    }
    const allowed = [...new Set(ids.flatMap(describeIdentities))];
    out.denials.push({
      rule: 'child-finalizer',
      path: 'metadata.finalizers',
      message: forbidden(
        'metadata.finalizers',
        `${quote(user.username)} may not remove finalizer ${quote(finalizer)} from ${child}; ` +
          `only its parent's controller may: ${allowed.join(', ') || NO_IDENTITY_REGISTERED} (${breakGlassText(policy)})`,
      ).message,
      fix: `leave finalizer ${quote(finalizer)} in place: ${[...keys].join(', ')} removes it once the parent's cleanup has run`,
      key: `child-finalizer:${finalizer}`,
    });
  }
  return out;
}

export const childFinalizerRule: ChildRuleModule<'child-finalizer'> = {
  id: 'child-finalizer',
  order: 150,
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'children',
  updateReads: () => ({ parts: ['finalizers'] }),
  facts: [],
  summary: "only the parent's controller (or break-glass, audited) removes a child's managed finalizer",
  validate: ({ policy, input }) => childFinalizer(policy, input, childMode(input)),
  native: {
    webhookOnly:
      'a child rule needs its parent looked up, which CEL cannot do: native mode adds no finalizer and does not guard its removal (run the webhook for child rules)',
  },
};
