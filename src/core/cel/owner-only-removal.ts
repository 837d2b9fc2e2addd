// owner-only-removal in CEL: hooks an UPDATE removes or re-owns, each allowed when the user acts for its owner
// (the registry compiled in), holds break-glass (a separate Warn+Audit policy), or RBAC grants remove on
// hookowners.hookkeeper.io/<owner>; otherwise denied (a registered owner) or given unverifiedRemoval's outcome.
// authorizer checks cost 350,000 each against a 1,000,000 per-expression limit, so each is its own variable, made
// only for the distinct owners nothing else allowed, at most MAX_OWNERS_CHECKED, as the webhook asks.
import { grantRoleName, HOOKOWNERS, MAX_OWNERS_CHECKED, shellWord } from '../ownership.js';
import { describeIdentities, serviceAccountUsername, type Policy } from '../policy.js';
import { existed } from './carrier.js';
import { str, stringMap, stringSet } from './text.js';
import type { CelVariable, NativeContext, NativeValidating, NativeValidation } from './types.js';

const USER = 'request.userInfo.username';

/** The registry as a CEL map: owner -> {'u': usernames (service accounts as usernames), 'g': groups} sets. */
export function registryLiteral(policy: Policy): string {
  const entries = Object.entries(policy.owners).map(([owner, ids]) => {
    const users = stringSet([...ids.users, ...ids.serviceAccounts.map(serviceAccountUsername)]);
    return `${str(owner)}: {'u': ${users}, 'g': ${stringSet(ids.groups)}}`;
  });
  return `{${entries.join(', ')}}`;
}

function breakGlassText(policy: Policy): string {
  const glass = [...policy.breakGlass.users, ...policy.breakGlass.groups.map((g) => `group ${g}`)];
  return glass.length > 0 ? `break-glass: ${glass.join(', ')}` : 'no break-glass identity is configured';
}

/**
 * The hooks an UPDATE removes or re-owns: {s: stage, n: name, o: owner, r: re-owned, p: the stored hook's path}
 * (values dyn(): a CEL map literal's values otherwise share the first one's type).
 */
function changedVariable(ctx: NativeContext): CelVariable {
  const parts = ctx.cel.stages.map(
    (s) =>
      `${s.oldHooks}.transformList(i, h, !(h.name in ${s.index}) || ${s.index}[h.name] != h.owner, ` +
      `{'s': dyn(${str(s.stage)}), 'n': dyn(h.name), 'o': dyn(h.owner), 'r': dyn(h.name in ${s.index}), 'p': dyn(${s.hookPath('i', 'h')})})`,
  );
  return { name: 'changed', expression: `request.operation == 'UPDATE' ? ${parts.join(' + ')} : []` };
}

/** The variables that ask RBAC about each distinct owner the registry did not settle, one check per variable. */
function rbacVariables(policy: Policy): CelVariable[] {
  const onlyRegistered = policy.unverifiedRemoval === 'allow' ? ' && c.o in variables.registered' : '';
  const out: CelVariable[] = [
    {
      name: 'unresolved0',
      expression: `variables.breakGlass ? [] : variables.changed.filter(c, c.o != '' && !(c.o in variables.actsFor)${onlyRegistered}).map(c, c.o)`,
    },
  ];
  const checked: string[] = [];
  for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
    out.push({
      name: `owner${k}`,
      expression: `size(variables.unresolved${k}) > 0 ? variables.unresolved${k}[0] : ''`,
    });
    if (k + 1 < MAX_OWNERS_CHECKED) {
      out.push({
        name: `unresolved${k + 1}`,
        expression: `variables.unresolved${k}.filter(o, o != variables.owner${k})`,
      });
    }
    out.push({
      name: `granted${k}`,
      expression:
        `variables.owner${k} != '' && authorizer.group(${str(HOOKOWNERS.group)}).resource(${str(HOOKOWNERS.resource)})` +
        `.namespace(request.namespace).name(variables.owner${k}).check(${str(HOOKOWNERS.verb)}).allowed()`,
    });
    checked.push(`variables.owner${k}`);
  }
  out.push({ name: 'checked', expression: `[${checked.join(', ')}]` });
  return out;
}

/**
 * The grant command the webhook prints, where CEL can build it: a registered owner's role name is compiled in; the
 * user's part is exact for lower-case DNS-like usernames and service accounts, otherwise a shorter pointer.
 */
function grantVariables(policy: Policy): CelVariable[] {
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

function denialMessage(policy: Policy, c: string): string {
  const who = stringMap(
    Object.entries(policy.owners).map(([owner, ids]) => [
      owner,
      describeIdentities(ids).join(', ') || '(no identity registered)',
    ]),
  );
  const bg = breakGlassText(policy);
  const head =
    `${c}.p + ': Forbidden: ' + strings.quote(${USER}) + ' may not ' + (${c}.r ? 'change the owner of ' : 'remove ') + ` +
    `${c}.s + ' hook ' + strings.quote(${c}.n) + ' ' + (${c}.o == '' ? 'which has no owner' : 'owned by ' + strings.quote(${c}.o)) + '; '`;
  const registered = `'only its owner may: ' + ${who}[${c}.o] + ${str(` (${bg}); `)} + ${grantText(`${c}.o`)}`;
  if (policy.unverifiedRemoval !== 'deny') return `${head} + ${registered}`;
  return (
    `${head} + (${c}.o in ${who} ? ${registered} : ${c}.o == '' ? ` +
    `${str(`no grant can name an empty owner and unverifiedRemoval is deny, so only break-glass may (${bg})`)} : ` +
    `${str(`no identity is registered or granted for that owner and unverifiedRemoval is deny (${bg}); `)} + ${grantText(`${c}.o`)})`
  );
}

/** strictOwners: a hook added with an owner the registry does not name (RBAC grants cannot be listed from CEL). */
function strictOwners(ctx: NativeContext): NativeValidation[] {
  const { verb, resource, group } = HOOKOWNERS;
  return ctx.cel.stages.map((s) => {
    const passes = `(h.owner in variables.registered || ${existed(s, 'h')})`;
    return {
      outcome: 'enforced',
      expression: `${s.hooks}.all(h, ${passes})`,
      messageExpression:
        `${s.hooks}.transformList(i, h, !${passes}, ${s.ownerPath('i', 'h')} + ': Invalid value: ' + strings.quote(h.owner) + ` +
        `': owner of hook ' + strings.quote(h.name) + ' is not registered in the policy and strictOwners is on' + ` +
        `(h.owner == '' ? '' : ${str(`, and no RBAC grant of ${verb} on ${resource}.${group} names it (RBAC not consulted)`)}))[0]`,
      reason: 'Invalid',
    };
  });
}

export function nativeOwnerOnlyRemoval(ctx: NativeContext): NativeValidating {
  const { policy, cel } = ctx;
  const variables: CelVariable[] = [{ name: 'registered', expression: registryLiteral(policy) }];
  const validations: NativeValidation[] = policy.strictOwners ? strictOwners(ctx) : [];
  if (!cel.carrier.live) return { variables, validations };
  variables.push(
    changedVariable(ctx),
    {
      name: 'breakGlass',
      expression: `${USER} in ${stringSet(policy.breakGlass.users)} || request.userInfo.groups.exists(g, g in ${stringSet(policy.breakGlass.groups)})`,
    },
    {
      name: 'actsFor',
      expression: `variables.registered.transformMapEntry(o, ids, ${USER} in ids.u || request.userInfo.groups.exists(g, g in ids.g), {o: true})`,
    },
    ...rbacVariables(policy),
    ...grantVariables(policy),
  );
  // One validation per owner RBAC is asked about: a message expression has no authorizer, so it cannot tell an
  // RBAC-allowed hook from a denied one; a validation per owner names that owner's first hook. Owners in order of
  // their first changed hook, so the first failing validation names the first hook the webhook denies.
  const guarded = (o: string): string =>
    policy.unverifiedRemoval === 'deny' ? 'true' : `${o} in variables.registered`;
  const beyond = (c: string): string =>
    `(${c}.o in variables.actsFor || (${c}.o != '' && ${c}.o in variables.checked))`;
  for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
    const o = `variables.owner${k}`;
    validations.push({
      outcome: 'enforced',
      expression: `${o} == '' || !(${guarded(o)}) || variables.granted${k}`,
      messageExpression: `variables.changed.filter(c, c.o == ${o}).map(c, ${denialMessage(policy, 'c')})[0]`,
      reason: 'Forbidden',
    });
  }
  // Hooks of no owner RBAC could be asked about (an empty owner, or beyond the owners a request may check).
  validations.push({
    outcome: 'enforced',
    expression: `variables.breakGlass || variables.changed.all(c, ${beyond('c')} || !(${guarded('c.o')}))`,
    messageExpression: `variables.changed.filter(c, !(${beyond('c')} || !(${guarded('c.o')}))).map(c, ${denialMessage(policy, 'c')})[0]`,
    reason: 'Forbidden',
  });
  if (policy.unverifiedRemoval === 'warn') {
    const { verb, resource } = HOOKOWNERS;
    const warning =
      `c.o == '' ? 'unverified: hook ' + c.n + ' has no owner to grant; ' + (c.r ? 're-owned ' : '') + 'by ' + ${USER} : ` +
      `'unverified: hook ' + c.n + ' of ' + c.o + '; grant ${verb} on ${resource}/' + c.o + '; ' + (c.r ? 're-owned ' : '') + 'by ' + ${USER}`;
    for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
      const o = `variables.owner${k}`;
      validations.push({
        outcome: 'warn',
        expression: `${o} == '' || ${o} in variables.registered || variables.granted${k}`,
        messageExpression: `variables.changed.filter(c, c.o == ${o}).map(c, ${warning})[0]`,
        reason: 'Forbidden',
      });
    }
    validations.push({
      outcome: 'warn',
      expression: `variables.breakGlass || variables.changed.all(c, ${beyond('c')} || c.o in variables.registered)`,
      messageExpression: `variables.changed.filter(c, !(${beyond('c')} || c.o in variables.registered)).map(c, ${warning})[0]`,
      reason: 'Forbidden',
    });
  }
  validations.push({
    outcome: 'breakGlass',
    expression: `!variables.breakGlass || variables.changed.all(c, c.o in variables.actsFor)`,
    messageExpression:
      `variables.changed.filter(c, !(c.o in variables.actsFor)).map(c, 'break-glass: ' + ${USER} + ' may ' + ` +
      `(c.r ? 'change the owner of ' : 'remove ') + c.s + ' hook ' + c.n + ' of ' + c.o + '; audited')[0]`,
    reason: 'Forbidden',
  });
  return { variables, validations };
}
