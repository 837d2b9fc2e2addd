// Squatting in CEL: the addition routes (./addition-routes.ts) compiled per owner the policy names, each route that
// is not an allow a validation of its outcome that fails where it is the first route to hold for a hook added under
// that owner's name. RBAC's answer is one authorizer check per owner, each its own variable, evaluated only when a
// hook of that owner is added; a message expression has no authorizer, so each validation names its owner's hook.
import { defaultHookSelectsUpdates } from '../../core/default-hook-selection.js';
import { additionDenialMessage, ownerIdentitiesText, RBAC_ALLOWED_IDENTITIES } from '../../core/messages/ownership.js';
import { grantCommand, registeredIdentities } from '../../core/ownership.js';
import { celWasStored } from '../../core/cel/carrier.js';
import { newlySelectedCel } from '../default-hooks/cel.js';
import { grantCel, removeAllowed } from './cel-messages.js';
import { ownerAdditionRoutes, type AdditionRoute } from './addition-routes.js';
import { firstHolding } from './route-list.js';
import { reasonCel } from './reasons.js';
import { cel, celJoin, celList, celString, celVariable, USER, type Cel } from '../../core/cel/text.js';
import type {
  CelStage,
  CelVariable,
  NativeContext,
  NativeValidating,
  NativeValidation,
  Outcome,
} from '../../core/cel/types.js';

const h = cel`h`;

/** A validation's outcome for a route's. */
const OUTCOMES: Readonly<Record<Exclude<AdditionRoute['outcome'], 'allow'>, Outcome>> = {
  deny: 'enforced',
  warn: 'warn',
  breakGlass: 'breakGlass',
};

/**
 * The owners native mode judges additions for: those the policy names (registered or reserved) for which a route
 * other than an allow can hold. Every other owner's routes must allow, as CEL sees it, or render refuses.
 */
export function guardedOwners(ctx: NativeContext): string[] {
  const { policy } = ctx;
  const judged = (owner: string | undefined): boolean =>
    firstHolding(ownerAdditionRoutes(policy, owner, cel`false`)).some((x) => x.route.outcome !== 'allow');
  if (judged(undefined))
    throw new Error('owner-only-removal: native mode judges additions only under owners the policy names');
  const named = [...Object.keys(policy.owners), ...policy.reservedHooks.map((r) => r.owner)];
  return [...new Set(named)].filter((o) => o !== '' && judged(o));
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

/** What a route says of `owner`'s hook at stage `s`: its warning, or the denial with its reason in CEL's slots. */
function routeText(ctx: NativeContext, owner: string, route: AdditionRoute): ((s: CelStage) => Cel) | undefined {
  if (route.outcome === 'allow') return undefined;
  if (route.outcome !== 'deny') return (s) => route.warning.toCel(hookSlots(s));
  const { policy } = ctx;
  const ids = registeredIdentities(policy, owner);
  // The owner is known here: who acts for it and its controller's grant are literals, as the webhook words them.
  const reason = reasonCel(route.reason, policy, {
    who: celString(ids ? ownerIdentitiesText(ids) : RBAC_ALLOWED_IDENTITIES),
    ownerless: cel`false`,
    requesterGrant: grantCel(celString(owner)),
    controllerGrant: celString(grantCommand(owner)),
  });
  return (s) => additionDenialMessage.toCel({ ...hookSlots(s), reason });
}

export function nativeOwnerAdditions(ctx: NativeContext): NativeValidating {
  const { view } = ctx;
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
  owners.forEach((owner, k) => {
    const granted = `addGranted${k}`;
    variables.push({ name: granted, expression: removeAllowed(celString(owner)) });
    for (const { route, first } of firstHolding(ownerAdditionRoutes(ctx.policy, owner, celVariable(granted)))) {
      const text = routeText(ctx, owner, route);
      if (route.outcome === 'allow' || !text) continue;
      validations.push({
        outcome: OUTCOMES[route.outcome],
        expression: cel`!(${celString(owner)} in variables.addedGuarded && ${first.cel})`,
        // The API server evaluates a passing validation's message too: one lookup unless the owner's hook is added.
        messageExpression: cel`!(${celString(owner)} in variables.addedGuarded) ? '' : ${firstAdded(ctx, owner, text)}`,
        reason: 'Forbidden',
      });
    }
  });
  return { variables, validations };
}
