// Rule missing-default-hook: an UPDATE of a non-deleting object that matches a default-hook rule but lacks its hook,
// as the stored object did (created while a fail-open webhook was down, or before hookkeeper was installed), is named
// at that update, not only by the audit; the update that removes the hook is owner-only-removal's to judge. A warning by default: refusing it would block every edit of such a Machine,
// and adding the hook is its owner's act (the deletion freeze forbids it once the Machine is deleting).
import { wellFormed } from '../../carriers.js';
import { metadata } from '../../guards.js';
import { nativeMissingDefaultHook } from './cel.js';
import { kindAndNamespaceCel, labelSelectorCel } from '../../cel/selector.js';
import type { Policy } from '../../policy.js';
import { matchesObject } from '../../selector.js';
import type { KubeObject, ReviewInput } from '../../types.js';
import { cel, celJoin } from '../../cel/text.js';
import type { CarrierRuleModule, UpdateReads } from '../context.js';
import { carriesDefaultHook, defaultHookReadParts, missingDefaultHookViolations } from '../default-hooks/rule.js';

export const missingDefaultHookRule: CarrierRuleModule<'missing-default-hook'> = {
  id: 'missing-default-hook',
  order: 110,
  enforcement: 'warn',
  ratchets: false,
  // The audit reports the same objects under default-hooks.
  sources: ['admission', 'validate'],
  selects: 'carriers',
  facts: [],
  summary:
    'an UPDATE of a non-deleting Machine that matches a default-hook rule but lacks its hook is named (the audit reports it too)',
  validate: (ctx) => {
    const { policy, input, carrier } = ctx;
    if (input.operation !== 'UPDATE' || !carrier.gatesDeletion || policy.enforcement['default-hooks'] === 'off')
      return { violations: [] };
    if (metadata(input.object)['deletionTimestamp'] !== undefined || input.oldObject === null)
      return { violations: [] };
    // Only what the stored object lacked too: a hook this very update removes is owner-only-removal's to judge.
    const stored = wellFormed(ctx.oldHooks.hooks);
    const lackedBefore = policy.defaultHooks.filter((r) => !carriesDefaultHook(stored, carrier, r));
    return { violations: missingDefaultHookViolations('missing-default-hook', ctx, lackedBefore) };
  },
  native: { validating: nativeMissingDefaultHook, readsNameIndex: false },
  updateReads: missingDefaultHookReads,
  createReads: () => ({ parts: [] }),
};

/**
 * The hooks, the deletion mark and the labels default-hook rules select by. It judges what is stored (a hook the
 * stored object lacked too), so under `deny` every UPDATE of an object a rule selects is sent; under `warn` an UPDATE
 * that changes none of these goes without the warning (docs/install.md#which-requests-reach-the-webhook).
 */
function missingDefaultHookReads(policy: Policy): UpdateReads {
  const parts = defaultHookReadParts(policy);
  if (policy.enforcement['missing-default-hook'] !== 'deny' || policy.enforcement['default-hooks'] === 'off')
    return { parts };
  const selected = policy.defaultHooks.map(
    (r) =>
      cel`(${kindAndNamespaceCel(r.match)} && !has(object.metadata.deletionTimestamp) && ${labelSelectorCel(r.match.labelSelector, cel`object`)})`,
  );
  const holds = (input: ReviewInput): boolean =>
    input.object !== null &&
    metadata(input.object)['deletionTimestamp'] === undefined &&
    policy.defaultHooks.some((r) => matchesObject(r.match, input.kind, input.namespace, input.object as KubeObject));
  return selected.length === 0
    ? { parts }
    : { parts, storedDenial: celJoin(selected, ' || '), storedDenialHolds: holds };
}
