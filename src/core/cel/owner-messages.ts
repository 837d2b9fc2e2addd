// owner-only-removal's words in CEL: the registry and break-glass as literals, and the denial as the webhook words
// it, the kubectl grant included where CEL can build it (src/core/rules/owner-only-removal.ts words the webhook's).
import {
  grantCommand,
  grantRoleName,
  HOOKOWNERS,
  shellWord,
  WILDCARD_WARNING_HEAD,
  wildcardDenialWords,
} from '../ownership.js';
import { serviceAccountUsername, type Policy } from '../policy.js';
import { str, stringMap, stringSet } from './text.js';
import type { CelVariable } from './types.js';

export const USER = 'request.userInfo.username';

/** The registry as a CEL map: owner -> {'u': usernames (service accounts as usernames), 'g': groups} sets. */
export function registryLiteral(policy: Policy): string {
  const entries = Object.entries(policy.owners).map(([owner, ids]) => {
    const users = stringSet([...ids.users, ...ids.serviceAccounts.map(serviceAccountUsername)]);
    return `${str(owner)}: {'u': ${users}, 'g': ${stringSet(ids.groups)}}`;
  });
  return `{${entries.join(', ')}}`;
}

export function breakGlassUser(policy: Policy): string {
  return `${USER} in ${stringSet(policy.breakGlass.users)} || request.userInfo.groups.exists(g, g in ${stringSet(policy.breakGlass.groups)})`;
}

export function breakGlassText(policy: Policy): string {
  const glass = [...policy.breakGlass.users, ...policy.breakGlass.groups.map((g) => `group ${g}`)];
  return glass.length > 0 ? `break-glass: ${glass.join(', ')}` : 'no break-glass identity is configured';
}

/** A changed hook as messages read it: the stored hook at index `idx` of stage `s`. */
export interface HookView {
  p: string;
  s: string;
  n: string;
  o: string;
  r: string;
}

/**
 * The grant command the webhook prints, where CEL can build it: a registered owner's role name is compiled in; the
 * user's part is exact for lower-case DNS-like usernames and service accounts, otherwise a shorter pointer.
 */
export function grantVariables(policy: Policy): CelVariable[] {
  const owners = Object.keys(policy.owners);
  const sa = `${USER}.matches('^system:serviceaccount:[a-z0-9]([a-z0-9.-]*[a-z0-9])?:[a-z0-9]([a-z0-9.-]*[a-z0-9])?$')`;
  const plain = `${USER}.matches('^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$')`;
  return [
    { name: 'grantRoles', expression: stringMap(owners.map((o) => [o, grantRoleName(o)])) },
    { name: 'grantWords', expression: stringMap(owners.map((o) => [o, shellWord(o)])) },
    // [binding name part, subject flag], or [] when CEL cannot word them as the webhook does.
    {
      name: 'grantUser',
      expression:
        `size(${USER}) > 100 ? [] : ${sa} ? [${USER}.replace(':', '-'), '--serviceaccount=' + ${USER}.substring(22)] : ` +
        `${plain} ? [${USER}, '--user=' + ${USER}] : []`,
    },
  ];
}

/** "to let <user> act for it: <grant>" for owner expression `o`. */
function grantText(o: string): string {
  const { verb, resource, group } = HOOKOWNERS;
  const role = `variables.grantRoles[${o}]`;
  const command =
    `'kubectl create clusterrole ' + ${role} + ' --verb=${verb} --resource=${resource}.${group} --resource-name=' + variables.grantWords[${o}] + ` +
    `' && kubectl create clusterrolebinding ' + ${role} + '-' + variables.grantUser[0] + ' --clusterrole=' + ${role} + ' ' + variables.grantUser[1]`;
  const fallback = `'grant ${verb} on ${resource}.${group} with resourceName ' + strings.quote(${o})`;
  return `'to let ' + strings.quote(${USER}) + ' act for it: ' + (${o} in variables.grantRoles && size(variables.grantUser) == 2 ? ${command} : ${fallback})`;
}

/** A denial's words up to its reason: which hook, whose, and who tried. */
function denialHead(c: HookView): string {
  return (
    `${c.p} + ': Forbidden: ' + strings.quote(${USER}) + ' may not ' + (${c.r} ? 'change the owner of ' : 'remove ') + ` +
    `${c.s} + ' hook ' + strings.quote(${c.n}) + ' ' + (${c.o} == '' ? 'which has no owner' : 'owned by ' + strings.quote(${c.o})) + '; '`
  );
}

export function denialMessage(policy: Policy, c: HookView): string {
  const who = 'variables.ownerIdentities';
  const bg = breakGlassText(policy);
  const head = denialHead(c);
  const registered = `'only its owner may: ' + ${who}[${c.o}] + ${str(` (${bg}); `)} + ${grantText(c.o)}`;
  if (policy.unverifiedRemoval !== 'deny') return `${head} + ${registered}`;
  return (
    `${head} + (${c.o} in ${who} ? ${registered} : ${c.o} == '' ? ` +
    `${str(`no grant can name an empty owner and unverifiedRemoval is deny, so only break-glass may (${bg})`)} : ` +
    `${str(`no identity is registered or granted for that owner and unverifiedRemoval is deny (${bg}); `)} + ${grantText(c.o)})`
  );
}

/** The grant command with no user (a service account to fill in), compiled in for each registered owner. */
export function ownerGrantVariable(policy: Policy): CelVariable {
  return { name: 'ownerGrants', expression: stringMap(Object.keys(policy.owners).map((o) => [o, grantCommand(o)])) };
}

/** The denial of a removal only wildcard RBAC rights allowed (wildcardGrants: deny), in the webhook's words. */
export function wildcardDenialMessage(policy: Policy, c: HookView): string {
  const { verb, resource, group } = HOOKOWNERS;
  const grant =
    `(${c.o} in variables.ownerGrants ? variables.ownerGrants[${c.o}] : ` +
    `'grant ${verb} on ${resource}.${group} with resourceName ' + strings.quote(${c.o}))`;
  return `${denialHead(c)} + 'RBAC lets ' + strings.quote(${USER}) + ${str(wildcardDenialWords(breakGlassText(policy)))} + ${grant}`;
}

/** The wildcardGrants: warn warning, in the webhook's words. */
export function wildcardWarning(c: HookView): string {
  return (
    `(${str(WILDCARD_WARNING_HEAD)} + ${USER} + ' may ' + (${c.r} ? 'change the owner of ' : 'remove ') + ${c.s} + ` +
    `' hook ' + ${c.n} + ' of ' + ${c.o} + '; audited')`
  );
}
