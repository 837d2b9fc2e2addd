// Squatting in CEL (src/rules/owner-only-removal/additions.ts): a hook added under the name of an owner the policy guards
// (registered or reserved; CEL cannot list RBAC grants) passes only for its registered identities, break-glass (a
// warning), RBAC's `remove` on hookowners/<owner> (wildcard rights under wildcardGrants), or a default hook the
// policy adds on this very request. One authorizer check per guarded owner, each its own variable, evaluated only
// when a hook of that owner is added.
import { defaultHookSelectsUpdates } from '../../core/default-hook-selection.js';
import {
  additionDenialMessage,
  breakGlassAddWarning,
  breakGlassText,
  ownerIdentitiesText,
  ownerOnlyReason,
  RBAC_ALLOWED_IDENTITIES,
  wildcardAddWarning,
  wildcardReason,
} from '../../core/messages/ownership.js';
import { grantCommand, registeredIdentities } from '../../core/ownership.js';
import { celWasStored } from '../../core/cel/carrier.js';
import { newlySelectedCel } from '../default-hooks/cel.js';
import { grantCel, removeAllowed } from './cel-messages.js';
import { cel, celJoin, celList, celString, celVariable, USER, type Cel } from '../../core/cel/text.js';
import type { CelStage, CelVariable, NativeContext, NativeValidating, NativeValidation } from '../../core/cel/types.js';

const h = cel`h`;

/** The owners whose hooks only those who act for them may add, in a fixed order: registered, then reserved. */
export function guardedOwners(ctx: NativeContext): string[] {
  const { policy } = ctx;
  return [...new Set([...Object.keys(policy.owners), ...policy.reservedHooks.map((r) => r.owner)])].filter(
    (o) => o !== '',
  );
}

/** Hook `h` of stage `s` is added by this request and not a default hook the policy adds on it. */
function addedHere(ctx: NativeContext, s: CelStage): Cel {
  const own = defaultHookSelectsUpdates(ctx.policy, ctx.view.carrier)
    .filter((r) => r.stage === s.stage)
    .map(
      (r) =>
        cel`(h.name == ${celString(r.hook.name)} && h.owner == ${celString(r.hook.owner)} && ${newlySelectedCel(r, true)})`,
    );
  return celJoin([cel`!${celWasStored(s, h)}`, ...own.map((c) => cel`!${c}`)], ' && ');
}

/** The first hook of `owner` this request adds, worded by `text`; '' when none. */
function firstAdded(ctx: NativeContext, owner: string, text: (s: CelStage) => Cel): Cel {
  const lists = ctx.view.stages.map(
    (s) => cel`${s.hooks}.transformList(i, h, h.owner == ${celString(owner)} && ${addedHere(ctx, s)}, ${text(s)})`,
  );
  return cel`[${celJoin(lists, ' + ')}].map(l, size(l) > 0 ? l[0] : '')[0]`;
}

const hookSlots = (s: CelStage) => ({
  path: s.hookPath(cel`i`, h),
  user: USER,
  stage: celString(s.stage),
  name: cel`h.name`,
  owner: cel`h.owner`,
});

export function nativeOwnerAdditions(ctx: NativeContext): NativeValidating {
  const { policy, view } = ctx;
  const owners = guardedOwners(ctx);
  if (owners.length === 0) return { variables: [], validations: [] };
  // A Machine's CREATE is its controller's, from a template: only a template's CREATE is judged.
  const judged = view.carrier.live ? cel`request.operation == 'UPDATE'` : cel`true`;
  const variables: CelVariable[] = [
    {
      name: 'addedGuarded',
      expression: cel`!(${judged}) ? [] : ${celJoin(
        view.stages.map(
          (s) =>
            cel`${s.hooks}.filter(h, h.owner in ${celList(owners.map(celString))} && ${addedHere(ctx, s)}).map(h, h.owner)`,
        ),
        ' + ',
      )}`,
    },
  ];
  const validations: NativeValidation[] = [];
  const breakGlass = celString(breakGlassText(policy));
  owners.forEach((owner, k) => {
    const granted = `addGranted${k}`;
    variables.push({ name: granted, expression: removeAllowed(celString(owner)) });
    const o = celString(owner);
    const settled = cel`!(${o} in variables.addedGuarded) || variables.breakGlass || ${o} in variables.actsFor`;
    const ids = registeredIdentities(policy, owner);
    // A message expression has no authorizer: one validation for no right at all, one for wildcard rights only.
    const denial =
      (reason: Cel) =>
      (s: CelStage): Cel =>
        additionDenialMessage.toCel({ ...hookSlots(s), reason });
    const ownerOnly = ownerOnlyReason.toCel({
      user: USER,
      breakGlass,
      who: celString(ids ? ownerIdentitiesText(ids) : RBAC_ALLOWED_IDENTITIES),
      unchecked: celString(''),
      grant: grantCel(o),
    });
    validations.push({
      outcome: 'enforced',
      expression: cel`${settled} || ${celVariable(granted)}`,
      messageExpression: cel`${settled} ? '' : ${firstAdded(ctx, owner, denial(ownerOnly))}`,
      reason: 'Forbidden',
    });
    if (policy.wildcardGrants === 'deny') {
      const wildcard = wildcardReason.toCel({ user: USER, breakGlass, grant: celString(grantCommand(owner)) });
      validations.push({
        outcome: 'enforced',
        expression: cel`${settled} || !(${celVariable(granted)} && variables.wildcardRights)`,
        messageExpression: cel`${settled} ? '' : ${firstAdded(ctx, owner, denial(wildcard))}`,
        reason: 'Forbidden',
      });
    }
    if (policy.wildcardGrants === 'warn')
      validations.push({
        outcome: 'warn',
        expression: cel`${settled} || !(${celVariable(granted)} && variables.wildcardRights)`,
        messageExpression: cel`${settled} ? '' : ${firstAdded(ctx, owner, (s) => wildcardAddWarning.toCel(hookSlots(s)))}`,
        reason: 'Forbidden',
      });
  });
  // One warning names the first guarded hook break-glass adds for an owner it does not act for.
  const glassed = (s: CelStage): Cel => breakGlassAddWarning.toCel(hookSlots(s));
  const firstGlassed = celJoin(
    owners.map((owner) => cel`(${celString(owner)} in variables.actsFor ? '' : ${firstAdded(ctx, owner, glassed)})`),
    ', ',
  );
  validations.push({
    outcome: 'breakGlass',
    expression: cel`!variables.breakGlass || variables.addedGuarded.all(o, o in variables.actsFor)`,
    messageExpression: cel`!variables.breakGlass || variables.addedGuarded.all(o, o in variables.actsFor) ? '' : [${firstGlassed}].filter(m, m != '')[0]`,
    reason: 'Forbidden',
  });
  return { variables, validations };
}
