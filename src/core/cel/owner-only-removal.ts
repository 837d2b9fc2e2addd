// owner-only-removal in CEL: hooks an UPDATE removes or re-owns, each allowed when the user acts for its owner
// (the registry compiled in), holds break-glass (a separate Warn+Audit policy), or RBAC grants remove on
// hookowners.hookkeeper.io/<owner>; otherwise denied (a registered owner) or given unverifiedRemoval's outcome.
// authorizer checks cost 350,000 each against a 1,000,000 per-expression limit, so each is its own variable, made
// only for the distinct owners nothing else allowed, at most MAX_OWNERS_CHECKED, as the webhook asks; one more asks
// about the reserved probe owner, only once RBAC allowed an owner, to tell wildcard rights from a named grant.
import { HOOKOWNERS, MAX_OWNERS_CHECKED, WILDCARD_PROBE_OWNER } from '../ownership.js';
import { describeIdentities } from '../policy.js';
import { existed } from './carrier.js';
import {
  breakGlassUser,
  denialMessage,
  grantVariables,
  ownerGrantVariable,
  registryLiteral,
  USER,
  wildcardDenialMessage,
  wildcardWarning,
  type HookView,
} from './owner-messages.js';
import { capitalize, str, stringMap } from './text.js';
import type { CelStage, CelVariable, NativeContext, NativeValidating, NativeValidation } from './types.js';

/**
 * The hooks an UPDATE removes or re-owns, per stage: their indices in the stored object's list (changed<Stage>) and
 * their owners (changedOwners<Stage>, joined in changedOwners). Plain lists, no map per hook: a request may remove
 * 20,000 hooks of one stage within one expression's cost limit.
 */
function changedVariables(ctx: NativeContext): CelVariable[] {
  const out: CelVariable[] = [];
  for (const s of ctx.cel.stages) {
    // By identity: each stored annotation key is judged on its own, even when another key's name parses alike.
    const cond = `!(${s.id('h')} in ${s.index}) || ${s.index}[${s.id('h')}] != h.owner`;
    out.push(
      {
        name: changedName(s),
        expression: `request.operation == 'UPDATE' ? ${s.oldHooks}.transformList(i, h, ${cond}, i) : []`,
      },
      {
        name: `changedOwners${cap(s)}`,
        expression: `request.operation == 'UPDATE' ? ${s.oldHooks}.transformList(i, h, ${cond}, h.owner) : []`,
      },
    );
  }
  out.push({
    name: 'changedOwners',
    expression: ctx.cel.stages.map((s) => `variables.changedOwners${cap(s)}`).join(' + '),
  });
  return out;
}

const cap = (s: CelStage): string => capitalize(s.stage);
const changedName = (s: CelStage): string => `changed${cap(s)}`;

function view(s: CelStage, idx: string): HookView {
  const h = `${s.oldHooks}[${idx}]`;
  return { p: s.hookPath(idx, h), s: str(s.stage), n: `${h}.name`, o: `${h}.owner`, r: `(${s.id(h)} in ${s.index})` };
}

/**
 * The message for the changed hook at position `p` of changedOwners (the stages' lists joined in order): the stage
 * found by the lengths before it, the stored hook at its index there. Constant cost: no pass over a list.
 */
function changedAt(ctx: NativeContext, p: string, text: (v: HookView) => string): string {
  const stages = [...ctx.cel.stages];
  let out = "''";
  for (let i = stages.length - 1; i >= 0; i--) {
    const s = stages[i] as CelStage;
    const before = stages.slice(0, i).map((b) => `size(variables.changedOwners${cap(b)})`);
    const local = before.length === 0 ? p : `${p} - ${before.join(' - ')}`;
    const hook = text(view(s, `variables.${changedName(s)}[${local}]`));
    const bound = [...before, `size(variables.changedOwners${cap(s)})`].join(' + ');
    out = i === stages.length - 1 ? hook : `${p} < ${bound} ? ${hook} : ${out}`;
  }
  return out;
}

/**
 * The message for the first changed hook (stage by stage, in list order) whose owner satisfies `pred`: each
 * stage's matching indices computed once, the text built for the first one only.
 */
function firstChanged(ctx: NativeContext, pred: (owner: string) => string, text: (v: HookView) => string): string {
  // The API server evaluates every message expression on every request: nothing changed costs one size().
  let out = "''";
  for (const s of [...ctx.cel.stages].reverse()) {
    // Positions in the owners list (plain strings CEL built), then the stored hook at the first one only.
    const picked = `variables.changedOwners${cap(s)}.transformList(j, o, ${pred('o')}, j)`;
    out = `[${picked}].map(a, size(a) > 0 ? ${text(view(s, `variables.${changedName(s)}[a[0]]`))} : ${out})[0]`;
  }
  return `size(variables.changedOwners) == 0 ? '' : ${out}`;
}

/** Whether RBAC allows the requester `remove` on hookowners named `owner` (a CEL string) in the request's namespace. */
function removeAllowed(owner: string): string {
  return (
    `authorizer.group(${str(HOOKOWNERS.group)}).resource(${str(HOOKOWNERS.resource)})` +
    `.namespace(request.namespace).name(${owner}).check(${str(HOOKOWNERS.verb)}).allowed()`
  );
}

/**
 * The variables that ask RBAC about each distinct owner of a family the registry did not settle, one check per
 * variable, the first MAX_OWNERS_CHECKED in the order of their first changed hook: `guarded` (owners whose hooks
 * are denied unless RBAC allows: registered ones, or every one under unverifiedRemoval: deny) and `unverified`
 * (owners nobody registered, warned about unless RBAC allows). Each family is only evaluated by the policy using it.
 * The unresolved lists hold positions in changedOwners, so the k-th owner's first changed hook is at the head of the
 * k-th list: its message costs no pass of its own (`${family}At<k>`).
 */
function rbacVariables(family: 'guarded' | 'unverified', filter: string): CelVariable[] {
  const out: CelVariable[] = [
    {
      name: `${family}Unresolved0`,
      expression: `variables.breakGlass ? [] : variables.changedOwners.transformList(j, o, o != '' && !(o in variables.actsFor) && ${filter}, j)`,
    },
  ];
  const checked: string[] = [];
  for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
    const unresolved = `variables.${family}Unresolved${k}`;
    out.push(
      { name: `${family}At${k}`, expression: `size(${unresolved}) > 0 ? ${unresolved}[0] : -1` },
      {
        name: `${family}${k}`,
        expression: `variables.${family}At${k} >= 0 ? variables.changedOwners[variables.${family}At${k}] : ''`,
      },
    );
    if (k + 1 < MAX_OWNERS_CHECKED) {
      out.push({
        name: `${family}Unresolved${k + 1}`,
        expression: `${unresolved}.filter(j, variables.changedOwners[j] != variables.${family}${k})`,
      });
    }
    out.push({
      name: `${family}Granted${k}`,
      expression: `variables.${family}${k} != '' && ${removeAllowed(`variables.${family}${k}`)}`,
    });
    checked.push(`variables.${family}${k}`);
  }
  out.push({ name: `${family}Checked`, expression: `[${checked.join(', ')}]` });
  return out;
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
    ...changedVariables(ctx),
    { name: 'breakGlass', expression: breakGlassUser(policy) },
    {
      name: 'actsFor',
      expression: `variables.registered.transformMapEntry(o, ids, ${USER} in ids.u || request.userInfo.groups.exists(g, g in ids.g), {o: true})`,
    },
    ...rbacVariables('guarded', policy.unverifiedRemoval === 'deny' ? 'true' : 'o in variables.registered'),
    ...(policy.unverifiedRemoval === 'warn' ? rbacVariables('unverified', '!(o in variables.registered)') : []),
    // Rights over the probe owner, which no grant names, are rights over every owner: wildcard, not ownership.
    { name: 'wildcardRights', expression: removeAllowed(str(WILDCARD_PROBE_OWNER)) },
    ownerGrantVariable(policy),
    ...grantVariables(policy),
    {
      name: 'ownerIdentities',
      expression: stringMap(
        Object.entries(policy.owners).map(([owner, ids]) => [
          owner,
          describeIdentities(ids).join(', ') || '(no identity registered)',
        ]),
      ),
    },
  );
  // One validation per owner RBAC is asked about: a message expression has no authorizer, so it cannot tell an
  // RBAC-allowed hook from a denied one; a validation per owner names that owner's first hook, found where the
  // owner was (its position in changedOwners), not by another pass over the changed hooks. Owners in order of
  // their first changed hook, so the first failing validation names the first hook the webhook denies.
  // The removal checks matter only for an UPDATE that changes the hooks: a policy of their own, gated so
  // every other request costs one expression (the API server evaluates every message expression of a policy).
  const removal = {
    suffix: 'removal',
    when: { name: 'changes-hooks', expression: cel.changesHooks },
    updateOnly: true,
  };
  const breakGlassRemoval = {
    suffix: 'removal',
    when: {
      name: 'break-glass-changes-hooks',
      expression: `(${breakGlassUser(policy)}) && ${cel.changesHooks}`,
    },
    updateOnly: true,
  };
  const guarded = (o: string): string =>
    policy.unverifiedRemoval === 'deny' ? 'true' : `${o} in variables.registered`;
  const settled = (family: string, o: string): string =>
    `(${o} in variables.actsFor || (${o} != '' && ${o} in variables.${family}Checked))`;
  const denial = (v: HookView): string => denialMessage(policy, v);
  for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
    const o = `variables.guarded${k}`;
    validations.push({
      outcome: 'enforced',
      expression: `size(variables.guardedUnresolved0) == 0 || ${o} == '' || variables.guardedGranted${k}`,
      // A passing validation's message is still evaluated: an owner not asked about costs one comparison.
      messageExpression: `${o} == '' ? '' : ${changedAt(ctx, `variables.guardedAt${k}`, denial)}`,
      reason: 'Forbidden',
      gate: removal,
    });
  }
  // Wildcard rights allow every owner, so the first owner asked about tells whether they were used; the probe is
  // asked only when RBAC allowed it. Any other owner RBAC did not allow fails its own validation above.
  const usedWildcard = (family: string): string =>
    `size(variables.${family}Unresolved0) > 0 && variables.${family}Granted0 && variables.wildcardRights`;
  if (policy.wildcardGrants === 'deny') {
    validations.push({
      outcome: 'enforced',
      expression: `!(${usedWildcard('guarded')})`,
      messageExpression: `variables.guarded0 == '' ? '' : ${changedAt(ctx, 'variables.guardedAt0', (v) => wildcardDenialMessage(policy, v))}`,
      reason: 'Forbidden',
      gate: removal,
    });
  }
  // Hooks of no owner RBAC could be asked about (an empty owner, or beyond the owners a request may check).
  const unsettled = (x: string): string => `!(${settled('guarded', x)} || !(${guarded(x)}))`;
  validations.push({
    outcome: 'enforced',
    expression: `variables.breakGlass || variables.changedOwners.all(o, !${unsettled('o')})`,
    messageExpression: `variables.breakGlass || variables.changedOwners.all(o, !${unsettled('o')}) ? '' : ${firstChanged(ctx, unsettled, denial)}`,
    reason: 'Forbidden',
    gate: removal,
  });
  if (policy.unverifiedRemoval === 'warn') {
    const { verb, resource } = HOOKOWNERS;
    const warning = (v: HookView): string =>
      `(${v.o} == '' ? 'unverified: hook ' + ${v.n} + ' has no owner to grant; ' + (${v.r} ? 're-owned ' : '') + 'by ' + ${USER} : ` +
      `'unverified: hook ' + ${v.n} + ' of ' + ${v.o} + '; grant ${verb} on ${resource}/' + ${v.o} + '; ' + (${v.r} ? 're-owned ' : '') + 'by ' + ${USER})`;
    for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
      const o = `variables.unverified${k}`;
      validations.push({
        outcome: 'warn',
        // Under wildcardGrants: deny, wildcard rights count as RBAC saying no: the unverified warning.
        expression:
          `size(variables.unverifiedUnresolved0) == 0 || ${o} == '' || ` +
          (policy.wildcardGrants === 'deny'
            ? `(variables.unverifiedGranted${k} && !variables.wildcardRights)`
            : `variables.unverifiedGranted${k}`),
        messageExpression: `${o} == '' ? '' : ${changedAt(ctx, `variables.unverifiedAt${k}`, warning)}`,
        reason: 'Forbidden',
        gate: removal,
      });
    }
    const unverified = (x: string): string => `!(${settled('unverified', x)} || ${x} in variables.registered)`;
    validations.push({
      outcome: 'warn',
      expression: `variables.breakGlass || variables.changedOwners.all(o, !${unverified('o')})`,
      messageExpression: `variables.breakGlass || variables.changedOwners.all(o, !${unverified('o')}) ? '' : ${firstChanged(ctx, unverified, warning)}`,
      reason: 'Forbidden',
      gate: removal,
    });
  }
  if (policy.wildcardGrants === 'warn') {
    const families = policy.unverifiedRemoval === 'warn' ? ['guarded', 'unverified'] : ['guarded'];
    const used = (x: string): string =>
      `${x} != '' && !(${x} in variables.actsFor) && (${families.map((f) => `${x} in variables.${f}Checked`).join(' || ')})`;
    validations.push({
      outcome: 'warn',
      expression: `!(${families.map((f) => `(${usedWildcard(f)})`).join(' || ')})`,
      messageExpression: firstChanged(ctx, used, wildcardWarning),
      reason: 'Forbidden',
      gate: removal,
    });
  }
  validations.push({
    outcome: 'breakGlass',
    expression: `!variables.breakGlass || variables.changedOwners.all(o, o in variables.actsFor)`,
    messageExpression: firstChanged(
      ctx,
      (x) => `!(${x} in variables.actsFor)`,
      (v) =>
        `('break-glass: ' + ${USER} + ' may ' + (${v.r} ? 'change the owner of ' : 'remove ') + ${v.s} + ' hook ' + ${v.n} + ' of ' + ${v.o} + '; audited')`,
    ),
    reason: 'Forbidden',
    gate: breakGlassRemoval,
  });
  return { variables, validations };
}
