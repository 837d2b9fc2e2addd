// Rule default-hook-kept: a CREATE, or the UPDATE that makes an object match a default-hook rule, that ends admission
// without the rule's hook is refused. hookkeeper adds the hook on exactly these requests (default-hooks), but a later
// mutating plugin (a cluster-admin's MutatingAdmissionPolicy, another webhook) can take it away again; validation runs
// after every mutating plugin, so this is where the promise holds (issue 34). Stored objects lacking the hook are
// missing-default-hook's (a warning): this rule judges only requests that were to get the hook.
import { cel, celJoin, celString } from '../../cel/text.js';
import type { NativeContext, NativeValidating } from '../../cel/types.js';
import { defaultHookRulesOf } from '../../default-hook-selection.js';
import { and, not } from '../../expr/expr.js';
import { compiledPer } from '../../expr/compiled.js';
import { HookEnv } from '../../expr/hooks.js';
import type { Violation } from '../../types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { defaultHookReadParts, strippedDefaultHookMessage } from '../default-hooks/rule.js';
import { carriesRuleHook, selectsRequest } from '../default-hooks/selection.js';

/** Per default-hook rule of the carrier's kind: the request was to get its hook and ends without it. */
const strippedBy = compiledPer((policy, carrier) =>
  defaultHookRulesOf(policy, carrier).map((rule) => ({
    rule,
    stripped: and(selectsRequest(rule), not(carriesRuleHook(rule, carrier, false))),
  })),
);

const validate: Rule = ({ policy, input, carrier, hooks, oldHooks }) => {
  if (input.object === null) return { violations: [] };
  const env = new HookEnv(hooks, oldHooks, input);
  const violations: Violation[] = [];
  for (const { rule, stripped } of strippedBy(policy, carrier)) {
    if (!stripped.js(env)) continue;
    const path = carrier.stagePath(rule.stage);
    violations.push({
      rule: 'default-hook-kept',
      path,
      message: strippedDefaultHookMessage(carrier, rule),
      fix: `find the mutating webhook or MutatingAdmissionPolicy that removes ${path} from this object and exclude it, or turn default-hooks off in the policy`,
      hook: { stage: rule.stage, name: rule.hook.name, owner: rule.hook.owner },
      key: `default-kept:${rule.name}`,
    });
  }
  return { violations };
};

/** A policy of its own, evaluated only for a request some rule selects that lacks its hook: others cost one condition. */
function validating({ policy, view }: NativeContext): NativeValidating {
  const rules = strippedBy(policy, view.carrier);
  if (rules.length === 0) return { variables: [], validations: [] };
  const when = {
    name: 'selected-without-default-hook',
    expression: celJoin(
      rules.map((r) => cel`(${r.stripped.cel})`),
      ' || ',
    ),
  };
  return {
    variables: [],
    validations: rules.map((r) => ({
      outcome: 'enforced' as const,
      expression: cel`!(${r.stripped.cel})`,
      messageExpression: celString(strippedDefaultHookMessage(view.carrier, r.rule)),
      reason: 'Invalid' as const,
      gate: { suffix: 'default-hook-kept', when },
    })),
  };
}

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
  validate,
  native: { validating, readsNameIndex: false },
  updateReads: (policy) => ({ parts: defaultHookReadParts(policy) }),
  // A CREATE a default-hook rule selects is sent, hooks or none: a stripped one carries none.
  createReads: () => ({ parts: ['selected'] }),
};
