// Rule missing-default-hook: an UPDATE of a non-deleting object that matches a default-hook rule but lacks its hook,
// as the stored object did (created while a fail-open webhook was down, or before hookkeeper was installed), is named
// at that update, not only by the audit; the update that removes the hook is owner-only-removal's to judge. A warning by default: refusing it would block every edit of such a Machine,
// and adding the hook is its owner's act (the deletion freeze forbids it once the Machine is deleting).
import { defaultHookRulesOf } from '../../core/default-hook-selection.js';
import { and, not, or } from '../../core/expr/expr.js';
import { objectHas, operationIs, STORED } from '../../core/expr/request.js';
import { kindIn, labelsMatch, namespaceIn } from '../../core/expr/selector.js';
import type { Policy } from '../../core/policy.js';
import { conditionCheck } from '../../core/expr/condition-check.js';
import type { CarrierRuleModule, UpdateReads } from '../context.js';
import { defaultHookReadParts, missingDefaultHookViolation } from '../default-hooks/rule.js';
import { carriesRuleHook } from '../default-hooks/selection.js';

/**
 * Per default-hook rule of the carrier's kind: an UPDATE of a non-deleting object it matches that lacks its hook, as
 * the stored object did (a hook this very update removes is owner-only-removal's to judge).
 */
const check = conditionCheck({
  items: (policy, carrier) =>
    defaultHookRulesOf(policy, carrier).map((rule) => ({
      holds: and(
        operationIs('UPDATE'),
        not(objectHas(['metadata', 'deletionTimestamp'])),
        namespaceIn(rule.match.namespaces),
        labelsMatch(rule.match.labelSelector, 'object'),
        not(carriesRuleHook(rule, carrier, false)),
        STORED,
        not(carriesRuleHook(rule, carrier, true)),
      ),
      violation: missingDefaultHookViolation('missing-default-hook', carrier, rule),
    })),
  gate: { suffix: 'default-hooks', when: 'lacks-default-hook', updateOnly: true },
});

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
  validate: check.validate,
  native: check.native,
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
  if (policy.defaultHooks.length === 0) return { parts };
  const selected = policy.defaultHooks.map((r) =>
    and(
      kindIn(r.match.kinds),
      namespaceIn(r.match.namespaces),
      not(objectHas(['metadata', 'deletionTimestamp'])),
      labelsMatch(r.match.labelSelector, 'object'),
    ),
  );
  return { parts, storedDenial: or(...selected) };
}
