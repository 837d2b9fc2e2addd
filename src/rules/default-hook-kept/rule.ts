// Rule default-hook-kept: a CREATE, or the UPDATE that makes an object match a default-hook rule, that ends admission
// without the rule's hook is refused. hookkeeper adds the hook on exactly these requests (default-hooks), but a later
// mutating plugin (a cluster-admin's MutatingAdmissionPolicy, another webhook) can take it away again; validation runs
// after every mutating plugin, so this is where the promise holds (issue 34). Stored objects lacking the hook are
// missing-default-hook's (a warning): this rule judges only requests that were to get the hook.
import { defaultHookRulesOf } from '../../core/default-hook-selection.js';
import { and, not } from '../../core/expr/expr.js';
import { conditionCheck } from '../../core/expr/condition-check.js';
import type { CarrierRuleModule } from '../context.js';
import { defaultHookReadParts, strippedDefaultHookMessage } from '../default-hooks/rule.js';
import { carriesRuleHook, selectsRequest } from '../default-hooks/selection.js';

/** Per default-hook rule of the carrier's kind: the request was to get its hook and ends without it. */
const check = conditionCheck({
  items: (policy, carrier) =>
    defaultHookRulesOf(policy, carrier).map((rule) => {
      const path = carrier.stagePath(rule.stage);
      return {
        holds: and(selectsRequest(rule), not(carriesRuleHook(rule, carrier, false))),
        violation: {
          rule: 'default-hook-kept',
          path,
          message: strippedDefaultHookMessage(carrier, rule),
          fix: `find the mutating webhook or MutatingAdmissionPolicy that removes ${path} from this object and exclude it, or turn default-hooks off in the policy`,
          hook: { stage: rule.stage, name: rule.hook.name, owner: rule.hook.owner },
          key: `default-kept:${rule.name}`,
        },
      };
    }),
  gate: { suffix: 'default-hook-kept', when: 'selected-without-default-hook' },
});

export const defaultHookKeptRule: CarrierRuleModule<'default-hook-kept'> = {
  id: 'default-hook-kept',
  order: 100,
  enforcement: 'deny',
  // Nothing stored to ratchet: the object is new, or the stored one did not match the rule.
  ratchets: false,
  // `validate` mutates before it validates, as the API server does: an offline CREATE gets the hook and passes.
  sources: ['admission', 'validate'],
  selects: 'carriers',
  facts: [],
  summary:
    'a CREATE, or the UPDATE that makes a Machine match a default-hook rule, that ends admission without its hook (another mutation removed it) is refused',
  validate: check.validate,
  native: check.native,
  updateReads: (policy) => ({ parts: defaultHookReadParts(policy) }),
  // A CREATE a default-hook rule selects is sent, hooks or none: a stripped one carries none.
  createReads: () => ({ parts: ['selected'] }),
};
