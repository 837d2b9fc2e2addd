// owner-only-removal's words in CEL: the registry and break-glass as literals, and the messages of
// src/core/messages/ownership.ts filled with CEL expressions, the kubectl grant included where CEL can build it.
import {
  grantCommandMessage,
  HOOKOWNERS,
  namedGrantMessage,
  ownerIdentitiesText,
  RBAC_ALLOWED_IDENTITIES,
  removalDenialMessage,
  type ChangedHook,
} from '../../core/messages/ownership.js';
import type { CelSlots } from '../../core/messages/message.js';
import { grantCommand, grantRoleName, shellWord } from '../../core/ownership.js';
import { serviceAccountUsername, type Policy } from '../../core/policy.js';
import { cel, celString, celStringMap, celStringSet, celJoin, USER, type Cel } from '../../core/cel/text.js';
import type { CelVariable } from '../../core/cel/types.js';
import { nativeDenials, wildcardRoute, type DenyRoute } from './routes.js';
import { reasonCel, type ReasonCel } from './reasons.js';

export { USER };

/** The registry as a CEL map: owner -> {'u': usernames (service accounts as usernames), 'g': groups} sets. */
export function registryLiteral(policy: Policy): Cel {
  const entries = Object.entries(policy.owners).map(([owner, ids]) => {
    const users = celStringSet([...ids.users, ...ids.serviceAccounts.map(serviceAccountUsername)]);
    return cel`${celString(owner)}: {'u': ${users}, 'g': ${celStringSet(ids.groups)}}`;
  });
  return cel`{${celJoin(entries, ', ')}}`;
}

/** CEL bool: the requester holds break-glass. */
export function breakGlassUser(policy: Policy): Cel {
  return cel`${USER} in ${celStringSet(policy.breakGlass.users)} || request.userInfo.groups.exists(g, g in ${celStringSet(policy.breakGlass.groups)})`;
}

/** A changed hook as CEL expressions for the messages' slots (the user is the requester's). */
export type ChangedHookCel = CelSlots<Omit<ChangedHook, 'user'>>;

/** The slots of a changed hook's messages, the user included. */
export function changedHookSlots(c: ChangedHookCel): CelSlots<ChangedHook> {
  return { ...c, user: USER };
}

/**
 * The grant command the webhook prints, where CEL can build it: a registered owner's role name is compiled in; the
 * user's part is exact for lower-case DNS-like usernames and service accounts, otherwise a shorter pointer.
 */
/**
 * The usernames CEL words a grant for: a service account or a lower-case name it can build kubectl's --serviceaccount
 * or --user from, of at most maxLength characters. Native mode names the grant for any other (divergences.ts).
 */
export const WORDED_USER = {
  maxLength: 100,
  serviceAccount: '^system:serviceaccount:[a-z0-9]([a-z0-9.-]*[a-z0-9])?:[a-z0-9]([a-z0-9.-]*[a-z0-9])?$',
  plain: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$',
} as const;

/** Whether CEL words the grant for `username` as the webhook does (WORDED_USER, in JavaScript). */
export function grantWordedFor(username: string): boolean {
  return (
    username.length <= WORDED_USER.maxLength &&
    (new RegExp(WORDED_USER.serviceAccount).test(username) || new RegExp(WORDED_USER.plain).test(username))
  );
}

export function grantVariables(policy: Policy): CelVariable[] {
  const owners = Object.keys(policy.owners);
  const sa = cel`${USER}.matches(${celString(WORDED_USER.serviceAccount)})`;
  const plain = cel`${USER}.matches(${celString(WORDED_USER.plain)})`;
  return [
    { name: 'grantRoles', expression: celStringMap(owners.map((o) => [o, grantRoleName(o)])) },
    { name: 'grantWords', expression: celStringMap(owners.map((o) => [o, shellWord(o)])) },
    // [binding name part, subject flag], or [] when CEL cannot word them as the webhook does.
    {
      name: 'grantUser',
      expression: cel`size(${USER}) > ${WORDED_USER.maxLength} ? [] : ${sa} ? [${USER}.replace(':', '-'), '--serviceaccount=' + ${USER}.substring(22)] : ${plain} ? [${USER}, '--user=' + ${USER}] : []`,
    },
  ];
}

/** Whether RBAC allows the requester `remove` on hookowners named `owner` (a CEL string) in the request's namespace. */
export function removeAllowed(owner: Cel): Cel {
  return cel`authorizer.group(${celString(HOOKOWNERS.group)}).resource(${celString(HOOKOWNERS.resource)}).namespace(request.namespace).name(${owner}).check(${celString(HOOKOWNERS.verb)}).allowed()`;
}

/** The grant for the requester and owner expression `o`: the kubectl commands where CEL can word them, else named. */
export function grantCel(o: Cel): Cel {
  const role = cel`variables.grantRoles[${o}]`;
  const command = grantCommandMessage.toCel({
    role,
    ownerWord: cel`variables.grantWords[${o}]`,
    binding: cel`${role} + '-' + variables.grantUser[0]`,
    subject: cel`variables.grantUser[1]`,
  });
  return cel`(${o} in variables.grantRoles && size(variables.grantUser) == 2 ? ${command} : ${namedGrantMessage.toCel({ owner: o })})`;
}

/** What CEL has for a changed hook's owner `o` to fill a reason with (./reasons.ts). */
function ownerReasonCel(o: Cel, ownerless: Cel): ReasonCel {
  return {
    who: cel`(${o} in variables.ownerIdentities ? variables.ownerIdentities[${o}] : ${celString(RBAC_ALLOWED_IDENTITIES)})`,
    ownerless,
    requesterGrant: grantCel(o),
    controllerGrant: cel`(${o} in variables.ownerGrants ? variables.ownerGrants[${o}] : ${namedGrantMessage.toCel({ owner: o })})`,
  };
}

/**
 * The denial of a removal nothing allowed: the reason of the first denying route that holds for its owner (the
 * route list's, ./routes.ts), in the webhook's words.
 */
export function denialMessage(policy: Policy, c: ChangedHookCel): Cel {
  const routes = nativeDenials(policy, c.owner);
  const last = routes.pop();
  if (!last) throw new Error('owner-only-removal: native mode denies a removal no route denies');
  const text = (r: DenyRoute): Cel => reasonCel(r.reason, policy, ownerReasonCel(c.owner, c.ownerless));
  const reason = routes.reduceRight((rest, r) => cel`(${r.holds.cel} ? ${text(r)} : ${rest})`, text(last));
  return removalDenialMessage.toCel({ ...changedHookSlots(c), reason });
}

/** The grant command with no user (a service account to fill in), compiled in for each registered owner. */
export function ownerGrantVariable(policy: Policy): CelVariable {
  return {
    name: 'ownerGrants',
    expression: celStringMap(Object.keys(policy.owners).map((o) => [o, grantCommand(o)])),
  };
}

/** The registered identities of each owner, as denials list them. */
export function ownerIdentitiesVariable(policy: Policy): CelVariable {
  return {
    name: 'ownerIdentities',
    expression: celStringMap(Object.entries(policy.owners).map(([owner, ids]) => [owner, ownerIdentitiesText(ids)])),
  };
}

/** The denial of a removal only wildcard RBAC rights allowed (wildcardGrants: deny): that route's reason. */
export function wildcardDenialMessage(policy: Policy, c: ChangedHookCel): Cel {
  const route = wildcardRoute(policy, true);
  if (route.outcome !== 'deny') throw new Error(`owner-only-removal: wildcard rights end in route ${route.name}`);
  const reason = reasonCel(route.reason, policy, ownerReasonCel(c.owner, c.ownerless));
  return removalDenialMessage.toCel({ ...changedHookSlots(c), reason });
}
