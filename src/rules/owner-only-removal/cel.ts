// owner-only-removal in CEL: hooks an UPDATE removes or re-owns, each allowed when the user acts for its owner
// (the registry compiled in), holds break-glass (a separate Warn+Audit policy), or RBAC grants remove on
// hookowners.hookkeeper.io/<owner>; otherwise denied (a registered owner) or given unverifiedRemoval's outcome.
// The changed hooks and the RBAC checks per owner: ./changed-hooks.ts.
import { nativeOwnerAdditions } from './cel-additions.js';
import { strictOwners } from './strict-owners.js';
import { breakGlassWarning, unverifiedWarning, wildcardWarning } from '../../core/messages/ownership.js';
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

export function nativeOwnerOnlyRemoval(ctx: NativeContext): NativeValidating {
  const { policy, view } = ctx;
  const variables: CelVariable[] = [
    ...identityVariables(policy),
    ...grantVariables(policy),
    ownerIdentitiesVariable(policy),
  ];
  // Squatting: hooks added under a guarded owner's name, on every carrier (owner-additions.ts).
  const additions = nativeOwnerAdditions(ctx);
  variables.push(...additions.variables);
  const strict =
    policy.strictOwners && 'validating' in strictOwners.native ? strictOwners.native.validating(ctx) : undefined;
  const validations: NativeValidation[] = [...(strict?.validations ?? []), ...additions.validations];
  if (!view.carrier.live) return { variables, validations };
  variables.push(
    ...changedVariables(ctx),
    ...rbacVariables('guarded', policy.unverifiedRemoval === 'deny' ? cel`true` : cel`o in variables.registered`),
    ...(policy.unverifiedRemoval === 'warn' ? rbacVariables('unverified', cel`!(o in variables.registered)`) : []),
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
  const guarded = (x: Cel): Cel =>
    policy.unverifiedRemoval === 'deny' ? cel`true` : cel`${x} in variables.registered`;
  const settled = (family: string, x: Cel): Cel =>
    cel`(${x} in variables.actsFor || (${x} != '' && ${x} in ${celVariable(`${family}Checked`)}))`;
  const denial = (c: ChangedHookCel): Cel => denialMessage(policy, c);
  /** A warning of the requester's: the messages' slots with the user. */
  const warning =
    (m: typeof breakGlassWarning | typeof unverifiedWarning) =>
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
  if (policy.wildcardGrants === 'deny') {
    validations.push({
      outcome: 'enforced',
      expression: cel`!(${usedWildcard('guarded')})`,
      messageExpression: cel`variables.guarded0 == '' ? '' : ${changedAt(ctx, cel`variables.guardedAt0`, (c) => wildcardDenialMessage(policy, c))}`,
      reason: 'Forbidden',
      gate: removal,
    });
  }
  // Hooks of no owner RBAC could be asked about (an empty owner, or beyond the owners a request may check).
  const unsettled = (x: Cel): Cel => cel`!(${settled('guarded', x)} || !(${guarded(x)}))`;
  validations.push({
    outcome: 'enforced',
    expression: cel`variables.breakGlass || variables.changedOwners.all(o, !${unsettled(o)})`,
    messageExpression: cel`variables.breakGlass || variables.changedOwners.all(o, !${unsettled(o)}) ? '' : ${firstChanged(ctx, unsettled, denial)}`,
    reason: 'Forbidden',
    gate: removal,
  });
  if (policy.unverifiedRemoval === 'warn') {
    for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
      const owner = celVariable(`unverified${k}`);
      const granted = celVariable(`unverifiedGranted${k}`);
      validations.push({
        outcome: 'warn',
        // Under wildcardGrants: deny, wildcard rights count as RBAC saying no: the unverified warning.
        expression: cel`size(variables.unverifiedUnresolved0) == 0 || ${owner} == '' || ${
          policy.wildcardGrants === 'deny' ? cel`(${granted} && !variables.wildcardRights)` : granted
        }`,
        messageExpression: cel`${owner} == '' ? '' : ${changedAt(ctx, celVariable(`unverifiedAt${k}`), warning(unverifiedWarning))}`,
        reason: 'Forbidden',
        gate: removal,
      });
    }
    const unverified = (x: Cel): Cel => cel`!(${settled('unverified', x)} || ${x} in variables.registered)`;
    validations.push({
      outcome: 'warn',
      expression: cel`variables.breakGlass || variables.changedOwners.all(o, !${unverified(o)})`,
      messageExpression: cel`variables.breakGlass || variables.changedOwners.all(o, !${unverified(o)}) ? '' : ${firstChanged(ctx, unverified, warning(unverifiedWarning))}`,
      reason: 'Forbidden',
      gate: removal,
    });
  }
  if (policy.wildcardGrants === 'warn') {
    const families = policy.unverifiedRemoval === 'warn' ? ['guarded', 'unverified'] : ['guarded'];
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
      messageExpression: firstChanged(ctx, used, warning(wildcardWarning)),
      reason: 'Forbidden',
      gate: removal,
    });
  }
  validations.push({
    outcome: 'breakGlass',
    expression: cel`!variables.breakGlass || variables.changedOwners.all(o, o in variables.actsFor)`,
    messageExpression: firstChanged(ctx, (x) => cel`!(${x} in variables.actsFor)`, warning(breakGlassWarning)),
    reason: 'Forbidden',
    gate: breakGlassRemoval,
  });
  return { variables, validations };
}
