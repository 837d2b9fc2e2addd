// template-hook-removed in CEL: the hooks an UPDATE removes from or re-owns in a template, each passing when the
// requester acts for its owner by the registry (compiled in) or RBAC grants remove on hookowners.hookkeeper.io/<owner>
// (not through wildcard rights); one validation per owner RBAC is asked about, as owner-only-removal's, and one for
// the hooks of owners it could not be asked about (an empty owner, break-glass, past MAX_OWNERS_CHECKED).
import { templateHookRemovedMessage } from './messages.js';
import { MAX_OWNERS_CHECKED } from '../../ownership.js';
import {
  changedAt,
  changedVariables,
  firstChanged,
  identityVariables,
  rbacVariables,
} from '../../cel/changed-hooks.js';
import type { ChangedHookCel } from '../owner-only-removal/cel-messages.js';
import { cel, celString, celVariable, type Cel } from '../../cel/text.js';
import type { NativeContext, NativeValidating, NativeValidation } from '../../cel/types.js';

export function nativeTemplateHookRemoved(ctx: NativeContext): NativeValidating {
  const { policy, view } = ctx;
  // A Machine's removals are owner-only-removal's.
  if (view.carrier.live) return { variables: [], validations: [] };
  const text = (c: ChangedHookCel): Cel =>
    templateHookRemovedMessage.toCel({
      kind: celString(view.carrier.kind),
      stage: c.stage,
      name: c.name,
      owner: c.owner,
      ownerless: c.ownerless,
      reowned: c.reowned,
    });
  // Only an UPDATE that changes the hooks can remove one: a policy of its own, so other requests cost one condition.
  const gate = {
    suffix: 'template-removal',
    when: { name: 'changes-hooks', expression: view.changesHooks },
    updateOnly: true,
    changesHooks: true,
  };
  const validations: NativeValidation[] = [];
  for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
    const owner = celVariable(`template${k}`);
    validations.push({
      outcome: 'enforced',
      expression: cel`size(variables.templateUnresolved0) == 0 || ${owner} == '' || (${celVariable(`templateGranted${k}`)} && !variables.wildcardRights)`,
      // A passing validation's message is still evaluated: an owner not asked about costs one comparison.
      messageExpression: cel`${owner} == '' ? '' : ${changedAt(ctx, celVariable(`templateAt${k}`), text)}`,
      reason: 'Forbidden',
      gate,
    });
  }
  const unsettled = (x: Cel): Cel =>
    cel`!(${x} in variables.actsFor || (${x} != '' && ${x} in variables.templateChecked))`;
  const settled = cel`variables.changedOwners.all(o, !${unsettled(cel`o`)})`;
  validations.push({
    outcome: 'enforced',
    expression: settled,
    messageExpression: cel`${settled} ? '' : ${firstChanged(ctx, unsettled, text)}`,
    reason: 'Forbidden',
    gate,
  });
  return {
    variables: [...identityVariables(policy), ...changedVariables(ctx), ...rbacVariables('template', cel`true`)],
    validations,
  };
}
