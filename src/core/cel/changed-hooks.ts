// The hooks an UPDATE removes or re-owns, as CEL sees them, and who asks: the registry's identities compiled in,
// break-glass, and RBAC asked about each distinct owner nothing else settled (owner-only-removal's removals of a
// Machine's hooks, template-hook-removed's of a template's). authorizer checks cost 350,000 each against a 1,000,000
// per-expression limit, so each is its own variable, made only for the distinct owners nothing else allowed, at most
// MAX_OWNERS_CHECKED, as the webhook asks; one more asks about the reserved probe owner, only once RBAC allowed an
// owner, to tell wildcard rights from a named grant.
import { impliedOwnerCel } from '../implied-owner.js';
import { MAX_OWNERS_CHECKED, WILDCARD_PROBE_OWNER } from '../ownership.js';
import type { Policy } from '../policy.js';
import {
  breakGlassUser,
  registryLiteral,
  removeAllowed,
  type ChangedHookCel,
} from '../../rules/owner-only-removal/cel-messages.js';
import { capitalize, cel, celJoin, celList, celString, celVariable, USER, type Cel } from './text.js';
import type { CelStage, CelVariable, NativeContext } from './types.js';

const [h, o] = [cel`h`, cel`o`];

/** Who asks: the registry, break-glass, the owners the requester acts for by the registry, and wildcard rights. */
export function identityVariables(policy: Policy): CelVariable[] {
  return [
    { name: 'registered', expression: registryLiteral(policy) },
    { name: 'breakGlass', expression: breakGlassUser(policy) },
    {
      name: 'actsFor',
      expression: cel`variables.registered.transformMapEntry(o, ids, ${USER} in ids.u || request.userInfo.groups.exists(g, g in ids.g), {o: true})`,
    },
    // Rights over the probe owner, which no grant names, are rights over every owner: wildcard, not ownership.
    { name: 'wildcardRights', expression: removeAllowed(celString(WILDCARD_PROBE_OWNER)) },
  ];
}

/**
 * The hooks an UPDATE removes or re-owns, per stage: their indices in the stored object's list (changed<Stage>) and
 * their owners (changedOwners<Stage>, joined in changedOwners). Plain lists, no map per hook, so removing tens of
 * thousands of hooks of one stage stays within one expression's cost limit (docs/native-admission-policies.md).
 */
export function changedVariables(ctx: NativeContext): CelVariable[] {
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
        // Each with the owner the policy implies for an empty value (src/core/implied-owner.ts), as the webhook judges.
        expression: cel`request.operation == 'UPDATE' ? ${s.oldHooks}.transformList(i, h, ${cond}, ${impliedOwnerCel(ctx.policy, ctx.view.carrier, s.stage, h)}) : []`,
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

export type { ChangedHookCel };

/**
 * The changed hook at position `pos` of stage `s`'s changed lists, as the messages' slots read it. Its owner is the
 * one changedOwners<Stage> computed: the implied owners' conditionals stay in that variable, never repeated in a
 * message (32 of them in each of a message's slots passed the CEL parser's 100,000 code points).
 */
export function changedHook(s: CelStage, pos: Cel): ChangedHookCel {
  const idx = cel`${celVariable(changedName(s))}[${pos}]`;
  const stored = cel`${s.oldHooks}[${idx}]`;
  const owner = cel`${changedOwnersOf(s)}[${pos}]`;
  return {
    path: s.hookPath(idx, stored),
    stage: celString(s.stage),
    name: cel`${stored}.name`,
    owner,
    reowned: cel`(${s.id(stored)} in ${s.index})`,
    ownerless: cel`${owner} == ''`,
  };
}

/**
 * The message for the changed hook at position `p` of changedOwners (the stages' lists joined in order): the stage
 * found by the lengths before it, the stored hook at its index there. Constant cost: no pass over a list.
 */
export function changedAt(ctx: NativeContext, p: Cel, text: (c: ChangedHookCel) => Cel): Cel {
  const stages = [...ctx.view.stages];
  let out = cel`''`;
  for (let k = stages.length - 1; k >= 0; k--) {
    const s = stages[k] as CelStage;
    const before = stages.slice(0, k).map((b) => cel`size(${changedOwnersOf(b)})`);
    const local = before.length === 0 ? p : cel`${p} - ${celJoin(before, ' - ')}`;
    const hook = text(changedHook(s, local));
    const bound = celJoin([...before, cel`size(${changedOwnersOf(s)})`], ' + ');
    out = k === stages.length - 1 ? hook : cel`${p} < ${bound} ? ${hook} : ${out}`;
  }
  return out;
}

/**
 * The message for the first changed hook (stage by stage, in list order) whose owner satisfies `pred`: each
 * stage's matching indices computed once, the text built for the first one only.
 */
export function firstChanged(ctx: NativeContext, pred: (owner: Cel) => Cel, text: (c: ChangedHookCel) => Cel): Cel {
  // The API server evaluates every message expression on every request: nothing changed costs one size().
  let out = cel`''`;
  for (const s of [...ctx.view.stages].reverse()) {
    // Positions in the owners list (plain strings CEL built), then the stored hook at the first one only.
    const picked = cel`${changedOwnersOf(s)}.transformList(j, o, ${pred(o)}, j)`;
    out = cel`[${picked}].map(a, size(a) > 0 ? ${text(changedHook(s, cel`a[0]`))} : ${out})[0]`;
  }
  return cel`size(variables.changedOwners) == 0 ? '' : ${out}`;
}

/** The families of owners RBAC is asked about, each with its own variables. */
export type RbacFamily = 'guarded' | 'unverified' | 'template';

/**
 * The variables that ask RBAC about each distinct owner of a family the registry did not settle, one check per
 * variable, the first MAX_OWNERS_CHECKED in the order of their first changed hook: `guarded` (owners whose hooks
 * are denied unless RBAC allows: registered ones, or every one under unverifiedRemoval: deny) and `unverified`
 * (owners nobody registered, warned about unless RBAC allows). Each family is only evaluated by the policy using it.
 * The unresolved lists hold positions in changedOwners, so the k-th owner's first changed hook is at the head of the
 * k-th list: its message costs no pass of its own (`${family}At<k>`).
 */
export function rbacVariables(family: RbacFamily, filter: Cel): CelVariable[] {
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
