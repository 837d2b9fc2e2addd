// owner-only-removal in CEL: hooks an UPDATE removes or re-owns, each allowed when the user acts for its owner
// (the registry compiled in), holds break-glass (a separate Warn+Audit policy), or RBAC grants remove on
// hookowners.hookkeeper.io/<owner>; otherwise denied (a registered owner) or given unverifiedRemoval's outcome.
// The validations are unrolled per owner RBAC is asked about; which owners, and to what end, the route list says
// (./routes.ts). The changed hooks and the RBAC checks per owner: ../../cel/changed-hooks.ts.
import { nativeOwnerAdditions } from './cel-additions.js';
import { strictOwners } from './strict-owners.js';
import type { ChangedHook } from '../../core/messages/ownership.js';
import type { Message } from '../../core/messages/message.js';
import { FALSE, or, TRUE } from '../../core/expr/expr.js';
import { removalRoutes, unlessRbac, wildcardRoute, type RemovalRouteName } from './routes.js';
import { MAX_OWNERS_CHECKED } from '../../core/ownership.js';
import {
  changedAt,
  changedVariables,
  firstChanged,
  identityVariables,
  rbacVariables,
} from '../../core/cel/changed-hooks.js';
import {
  breakGlassUser,
  changedHookSlots,
  denialMessage,
  grantVariables,
  ownerGrantVariable,
  ownerIdentitiesVariable,
  wildcardDenialMessage,
  type ChangedHookCel,
} from './cel-messages.js';
import { cel, celJoin, celVariable, type Cel } from '../../core/cel/text.js';
import type { CelVariable, NativeContext, NativeValidating, NativeValidation } from '../../core/cel/types.js';

const o = cel`o`;

/** A route's warning, as the route list declares it. */
function warningOf(policy: NativeContext['policy'], name: RemovalRouteName): Message<ChangedHook> {
  const found = removalRoutes(policy).find((r) => r.name === name);
  if (found?.outcome !== 'warn' && found?.outcome !== 'breakGlass')
    throw new Error(`owner-only-removal: route ${name} has no warning`);
  return found.warning;
}

export function nativeOwnerOnlyRemoval(ctx: NativeContext): NativeValidating {
  const { policy, view } = ctx;
  const variables: CelVariable[] = [
    ...identityVariables(policy),
    ...grantVariables(policy),
    ownerIdentitiesVariable(policy),
  ];
  // Squatting: hooks added under a guarded owner's name, on every carrier (./cel-additions.ts).
  const additions = nativeOwnerAdditions(ctx);
  variables.push(...additions.variables);
  const strict =
    policy.strictOwners && 'validating' in strictOwners.native ? strictOwners.native.validating(ctx) : undefined;
  const validations: NativeValidation[] = [...(strict?.validations ?? []), ...additions.validations];
  if (!view.carrier.live) return { variables, validations };
  // The validations below settle the registry's and break-glass's requests before any RBAC family: the list must too.
  const order = removalRoutes(policy).map((r) => r.name);
  if (order.indexOf('break-glass') > order.indexOf('rbac') || order.indexOf('registry') > order.indexOf('break-glass'))
    throw new Error(`owner-only-removal: native mode's validations assume registry, then break-glass, then RBAC`);
  // From the route list (./routes.ts): the owners whose hook is denied, or warned about, unless RBAC allows (the
  // owners each family asks RBAC about), and where wildcard rights end for a registered owner and for another.
  const denied = unlessRbac(policy, 'deny');
  const warned = unlessRbac(policy, 'warn');
  const notWarned = or(denied, unlessRbac(policy, 'allow'));
  const [wildcardRegistered, wildcardOther] = [wildcardRoute(policy, true), wildcardRoute(policy, false)];
  const wildcardDenied = wildcardRegistered.outcome === 'deny';
  const wildcardWarned = wildcardRegistered.name === 'wildcard';
  // Rights over every owner, on an owner warned about unless RBAC allows, end as RBAC saying no.
  const wildcardUnverified = wildcardOther.name === 'unverified';
  // What the validations below can say of wildcard rights: warned about for every owner; or denied for the owners
  // the guarded family asks about (for every one when it asks about all) and RBAC's no for the others.
  const expressible = wildcardWarned
    ? wildcardOther.name === 'wildcard'
    : wildcardRegistered.name === 'wildcard-denied' &&
      (wildcardUnverified || (wildcardOther.name === 'wildcard-denied' && denied === TRUE));
  if (!expressible)
    throw new Error(
      `owner-only-removal: native mode has no validation for wildcard rights ending in routes ${wildcardRegistered.name} and ${wildcardOther.name}`,
    );
  variables.push(
    ...changedVariables(ctx),
    ...rbacVariables('guarded', denied.cel),
    ...(warned !== FALSE ? rbacVariables('unverified', warned.cel) : []),
    ownerGrantVariable(policy),
  );
  // One validation per owner RBAC is asked about: a message expression has no authorizer, so it cannot tell an
  // RBAC-allowed hook from a denied one; a validation per owner names that owner's first hook, found where the
  // owner was (its position in changedOwners), not by another pass over the changed hooks. Owners in order of
  // their first changed hook, so the first failing validation names the first hook the webhook denies.
  // The removal checks matter only for an UPDATE that changes the hooks: a policy of their own, gated so
  // every other request costs one expression (the API server evaluates every message expression of a policy).
  const removal = {
    suffix: 'removal',
    when: { name: 'changes-hooks', expression: view.changesHooks },
    updateOnly: true,
    changesHooks: true,
  };
  const breakGlassRemoval = {
    suffix: 'removal',
    when: {
      name: 'break-glass-changes-hooks',
      expression: cel`(${breakGlassUser(policy)}) && ${view.changesHooks}`,
    },
    updateOnly: true,
    changesHooks: true,
  };
  const settled = (family: string, x: Cel): Cel =>
    cel`(${x} in variables.actsFor || (${x} != '' && ${x} in ${celVariable(`${family}Checked`)}))`;
  const denial = (c: ChangedHookCel): Cel => denialMessage(policy, c);
  /** A warning of the requester's: the messages' slots with the user. */
  const warning =
    (m: Message<ChangedHook>) =>
    (c: ChangedHookCel): Cel =>
      m.toCel(changedHookSlots(c));
  for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
    const owner = celVariable(`guarded${k}`);
    validations.push({
      outcome: 'enforced',
      expression: cel`size(variables.guardedUnresolved0) == 0 || ${owner} == '' || ${celVariable(`guardedGranted${k}`)}`,
      // A passing validation's message is still evaluated: an owner not asked about costs one comparison.
      messageExpression: cel`${owner} == '' ? '' : ${changedAt(ctx, celVariable(`guardedAt${k}`), denial)}`,
      reason: 'Forbidden',
      gate: removal,
    });
  }
  // Wildcard rights allow every owner, so the first owner asked about tells whether they were used; the probe is
  // asked only when RBAC allowed it. Any other owner RBAC did not allow fails its own validation above.
  const usedWildcard = (family: string): Cel =>
    cel`size(${celVariable(`${family}Unresolved0`)}) > 0 && ${celVariable(`${family}Granted0`)} && variables.wildcardRights`;
  if (wildcardDenied) {
    validations.push({
      outcome: 'enforced',
      expression: cel`!(${usedWildcard('guarded')})`,
      messageExpression: cel`variables.guarded0 == '' ? '' : ${changedAt(ctx, cel`variables.guardedAt0`, (c) => wildcardDenialMessage(policy, c))}`,
      reason: 'Forbidden',
      gate: removal,
    });
  }
  // Hooks of no owner RBAC could be asked about (an empty owner, or beyond the owners a request may check).
  const unsettled = (x: Cel): Cel => cel`!(${settled('guarded', x)} || !(${denied.cel}))`;
  validations.push({
    outcome: 'enforced',
    expression: cel`variables.breakGlass || variables.changedOwners.all(o, !${unsettled(o)})`,
    messageExpression: cel`variables.breakGlass || variables.changedOwners.all(o, !${unsettled(o)}) ? '' : ${firstChanged(ctx, unsettled, denial)}`,
    reason: 'Forbidden',
    gate: removal,
  });
  if (warned !== FALSE) {
    const unverifiedWarning = warningOf(policy, 'unverified');
    for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
      const owner = celVariable(`unverified${k}`);
      const granted = celVariable(`unverifiedGranted${k}`);
      validations.push({
        outcome: 'warn',
        expression: cel`size(variables.unverifiedUnresolved0) == 0 || ${owner} == '' || ${
          wildcardUnverified ? cel`(${granted} && !variables.wildcardRights)` : granted
        }`,
        messageExpression: cel`${owner} == '' ? '' : ${changedAt(ctx, celVariable(`unverifiedAt${k}`), warning(unverifiedWarning))}`,
        reason: 'Forbidden',
        gate: removal,
      });
    }
    const unverified = (x: Cel): Cel => cel`!(${settled('unverified', x)} || ${notWarned.cel})`;
    validations.push({
      outcome: 'warn',
      expression: cel`variables.breakGlass || variables.changedOwners.all(o, !${unverified(o)})`,
      messageExpression: cel`variables.breakGlass || variables.changedOwners.all(o, !${unverified(o)}) ? '' : ${firstChanged(ctx, unverified, warning(unverifiedWarning))}`,
      reason: 'Forbidden',
      gate: removal,
    });
  }
  if (wildcardWarned) {
    const families = warned !== FALSE ? ['guarded', 'unverified'] : ['guarded'];
    const used = (x: Cel): Cel =>
      cel`${x} != '' && !(${x} in variables.actsFor) && (${celJoin(
        families.map((f) => cel`${x} in ${celVariable(`${f}Checked`)}`),
        ' || ',
      )})`;
    validations.push({
      outcome: 'warn',
      expression: cel`!(${celJoin(
        families.map((f) => cel`(${usedWildcard(f)})`),
        ' || ',
      )})`,
      messageExpression: firstChanged(ctx, used, warning(warningOf(policy, 'wildcard'))),
      reason: 'Forbidden',
      gate: removal,
    });
  }
  validations.push({
    outcome: 'breakGlass',
    expression: cel`!variables.breakGlass || variables.changedOwners.all(o, o in variables.actsFor)`,
    messageExpression: firstChanged(
      ctx,
      (x) => cel`!(${x} in variables.actsFor)`,
      warning(warningOf(policy, 'break-glass')),
    ),
    reason: 'Forbidden',
    gate: breakGlassRemoval,
  });
  return { variables, validations };
}
