// owner-only-removal in CEL: hooks an UPDATE removes or re-owns, each allowed when the user acts for its owner
// (the registry compiled in), holds break-glass (a separate Warn+Audit policy), or RBAC grants remove on
// hookowners.hookkeeper.io/<owner>; otherwise denied (a registered owner) or given unverifiedRemoval's outcome.
// authorizer checks cost 350,000 each against a 1,000,000 per-expression limit, so each is its own variable, made
// only for the distinct owners nothing else allowed, at most MAX_OWNERS_CHECKED, as the webhook asks; one more asks
// about the reserved probe owner, only once RBAC allowed an owner, to tell wildcard rights from a named grant.
import { nativeOwnerAdditions } from './owner-additions.js';
import {
  breakGlassWarning,
  RBAC_NOTES,
  strictOwnersMessage,
  unverifiedWarning,
  wildcardWarning,
} from '../messages/ownership.js';
import { MAX_OWNERS_CHECKED, WILDCARD_PROBE_OWNER } from '../ownership.js';
import { celWasStored } from './carrier.js';
import {
  breakGlassUser,
  changedHookSlots,
  denialMessage,
  grantVariables,
  ownerGrantVariable,
  ownerIdentitiesVariable,
  registryLiteral,
  removeAllowed,
  wildcardDenialMessage,
  type ChangedHookCel,
} from './owner-messages.js';
import { capitalize, cel, celJoin, celList, celString, celVariable, USER, type Cel } from './text.js';
import type { CelStage, CelVariable, NativeContext, NativeValidating, NativeValidation } from './types.js';

const [h, i, o] = [cel`h`, cel`i`, cel`o`];

/**
 * The hooks an UPDATE removes or re-owns, per stage: their indices in the stored object's list (changed<Stage>) and
 * their owners (changedOwners<Stage>, joined in changedOwners). Plain lists, no map per hook: a request may remove
 * 20,000 hooks of one stage within one expression's cost limit.
 */
function changedVariables(ctx: NativeContext): CelVariable[] {
  const out: CelVariable[] = [];
  for (const s of ctx.view.stages) {
    // By identity: each stored annotation key is judged on its own, even when another key's name parses alike.
    const cond = cel`!(${s.id(h)} in ${s.index}) || ${s.index}[${s.id(h)}] != h.owner`;
    out.push(
      {
        name: changedName(s),
        expression: cel`request.operation == 'UPDATE' ? ${s.oldHooks}.transformList(i, h, ${cond}, i) : []`,
      },
      {
        name: changedOwnersName(s),
        expression: cel`request.operation == 'UPDATE' ? ${s.oldHooks}.transformList(i, h, ${cond}, h.owner) : []`,
      },
    );
  }
  out.push({
    name: 'changedOwners',
    expression: celJoin(
      ctx.view.stages.map((s) => celVariable(changedOwnersName(s))),
      ' + ',
    ),
  });
  return out;
}

const changedName = (s: CelStage): string => `changed${capitalize(s.stage)}`;
const changedOwnersName = (s: CelStage): string => `changedOwners${capitalize(s.stage)}`;
const changedOwnersOf = (s: CelStage): Cel => celVariable(changedOwnersName(s));

/** The stored hook at index `idx` of stage `s`, as the messages' slots read it. */
function changedHook(s: CelStage, idx: Cel): ChangedHookCel {
  const stored = cel`${s.oldHooks}[${idx}]`;
  return {
    path: s.hookPath(idx, stored),
    stage: celString(s.stage),
    name: cel`${stored}.name`,
    owner: cel`${stored}.owner`,
    reowned: cel`(${s.id(stored)} in ${s.index})`,
    ownerless: cel`${stored}.owner == ''`,
  };
}

/**
 * The message for the changed hook at position `p` of changedOwners (the stages' lists joined in order): the stage
 * found by the lengths before it, the stored hook at its index there. Constant cost: no pass over a list.
 */
function changedAt(ctx: NativeContext, p: Cel, text: (c: ChangedHookCel) => Cel): Cel {
  const stages = [...ctx.view.stages];
  let out = cel`''`;
  for (let k = stages.length - 1; k >= 0; k--) {
    const s = stages[k] as CelStage;
    const before = stages.slice(0, k).map((b) => cel`size(${changedOwnersOf(b)})`);
    const local = before.length === 0 ? p : cel`${p} - ${celJoin(before, ' - ')}`;
    const hook = text(changedHook(s, cel`${celVariable(changedName(s))}[${local}]`));
    const bound = celJoin([...before, cel`size(${changedOwnersOf(s)})`], ' + ');
    out = k === stages.length - 1 ? hook : cel`${p} < ${bound} ? ${hook} : ${out}`;
  }
  return out;
}

/**
 * The message for the first changed hook (stage by stage, in list order) whose owner satisfies `pred`: each
 * stage's matching indices computed once, the text built for the first one only.
 */
function firstChanged(ctx: NativeContext, pred: (owner: Cel) => Cel, text: (c: ChangedHookCel) => Cel): Cel {
  // The API server evaluates every message expression on every request: nothing changed costs one size().
  let out = cel`''`;
  for (const s of [...ctx.view.stages].reverse()) {
    // Positions in the owners list (plain strings CEL built), then the stored hook at the first one only.
    const picked = cel`${changedOwnersOf(s)}.transformList(j, o, ${pred(o)}, j)`;
    out = cel`[${picked}].map(a, size(a) > 0 ? ${text(changedHook(s, cel`${celVariable(changedName(s))}[a[0]]`))} : ${out})[0]`;
  }
  return cel`size(variables.changedOwners) == 0 ? '' : ${out}`;
}

/**
 * The variables that ask RBAC about each distinct owner of a family the registry did not settle, one check per
 * variable, the first MAX_OWNERS_CHECKED in the order of their first changed hook: `guarded` (owners whose hooks
 * are denied unless RBAC allows: registered ones, or every one under unverifiedRemoval: deny) and `unverified`
 * (owners nobody registered, warned about unless RBAC allows). Each family is only evaluated by the policy using it.
 * The unresolved lists hold positions in changedOwners, so the k-th owner's first changed hook is at the head of the
 * k-th list: its message costs no pass of its own (`${family}At<k>`).
 */
function rbacVariables(family: 'guarded' | 'unverified', filter: Cel): CelVariable[] {
  const v = (name: string): Cel => celVariable(`${family}${name}`);
  const out: CelVariable[] = [
    {
      name: `${family}Unresolved0`,
      expression: cel`variables.breakGlass ? [] : variables.changedOwners.transformList(j, o, o != '' && !(o in variables.actsFor) && ${filter}, j)`,
    },
  ];
  const checked: Cel[] = [];
  for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
    const unresolved = v(`Unresolved${k}`);
    out.push(
      { name: `${family}At${k}`, expression: cel`size(${unresolved}) > 0 ? ${unresolved}[0] : -1` },
      {
        name: `${family}${k}`,
        expression: cel`${v(`At${k}`)} >= 0 ? variables.changedOwners[${v(`At${k}`)}] : ''`,
      },
    );
    if (k + 1 < MAX_OWNERS_CHECKED) {
      out.push({
        name: `${family}Unresolved${k + 1}`,
        expression: cel`${unresolved}.filter(j, variables.changedOwners[j] != ${v(`${k}`)})`,
      });
    }
    out.push({
      name: `${family}Granted${k}`,
      expression: cel`${v(`${k}`)} != '' && ${removeAllowed(v(`${k}`))}`,
    });
    checked.push(v(`${k}`));
  }
  out.push({ name: `${family}Checked`, expression: celList(checked) });
  return out;
}

/** strictOwners: a hook added with an owner the registry does not name (RBAC grants cannot be listed from CEL). */
function strictOwners(ctx: NativeContext): NativeValidation[] {
  return ctx.view.stages.map((s) => {
    const passes = cel`(h.owner in variables.registered || ${celWasStored(s, h)})`;
    const message = strictOwnersMessage.toCel({
      path: s.ownerPath(i, h),
      owner: cel`h.owner`,
      name: cel`h.name`,
      ownerless: cel`h.owner == ''`,
      rbac: celString(RBAC_NOTES.notConsulted),
    });
    return {
      outcome: 'enforced',
      expression: cel`${s.hooks}.all(h, ${passes})`,
      messageExpression: cel`${s.hooks}.transformList(i, h, !${passes}, ${message})[0]`,
      reason: 'Invalid',
    };
  });
}

export function nativeOwnerOnlyRemoval(ctx: NativeContext): NativeValidating {
  const { policy, view: carrier } = ctx;
  const variables: CelVariable[] = [
    { name: 'registered', expression: registryLiteral(policy) },
    { name: 'breakGlass', expression: breakGlassUser(policy) },
    {
      name: 'actsFor',
      expression: cel`variables.registered.transformMapEntry(o, ids, ${USER} in ids.u || request.userInfo.groups.exists(g, g in ids.g), {o: true})`,
    },
    // Rights over the probe owner, which no grant names, are rights over every owner: wildcard, not ownership.
    { name: 'wildcardRights', expression: removeAllowed(celString(WILDCARD_PROBE_OWNER)) },
    ...grantVariables(policy),
    ownerIdentitiesVariable(policy),
  ];
  // Squatting: hooks added under a guarded owner's name, on every carrier (owner-additions.ts).
  const additions = nativeOwnerAdditions(ctx);
  variables.push(...additions.variables);
  const validations: NativeValidation[] = [...(policy.strictOwners ? strictOwners(ctx) : []), ...additions.validations];
  if (!carrier.carrier.live) return { variables, validations };
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
    when: { name: 'changes-hooks', expression: carrier.changesHooks },
    updateOnly: true,
    changesHooks: true,
  };
  const breakGlassRemoval = {
    suffix: 'removal',
    when: {
      name: 'break-glass-changes-hooks',
      expression: cel`(${breakGlassUser(policy)}) && ${carrier.changesHooks}`,
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
