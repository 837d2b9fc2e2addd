// Who acts for a changed hook's owner, as expressions: facts CEL cannot compute as the webhook does (RBAC's answers,
// which the transport asks the API server about) enter as leaves whose JavaScript reads the review's ownership fact
// and whose CEL is what native mode asks the authorizer. RBAC is asked once per owner (one variable each, at most
// MAX_OWNERS_CHECKED), so an owner's leaves read differently where it is the k-th owner asked about (askedOwner)
// than for any changed hook's owner `o` (otherOwner); change-check.ts compiles a predicate for both.
import type { ChangedHookCel } from '../cel/changed-hooks.js';
import { cel, celString, celVariable } from '../cel/text.js';
import { ownValue } from '../guards.js';
import { RBAC_NOTES } from '../messages/ownership.js';
import { isProtected, registeredActor, type HookChange } from '../ownership.js';
import type { Policy } from '../policy.js';
import type { ReviewInput } from '../types.js';
import { FALSE, leaf, type Bool, type Env, type Str } from './expr.js';

/** What the leaves read in the webhook: the policy, the request and its facts, and the change being judged. */
export class ChangeEnv implements Env {
  memo: Map<string, unknown> | undefined;
  change: HookChange | undefined;
  constructor(
    readonly policy: Policy,
    readonly input: ReviewInput,
  ) {}
}

const changeEnv = (env: Env): ChangeEnv => env as ChangeEnv;
/** The owner judged: the stored hook's, with the owner the policy implies for an empty value (ownedChanges). */
const ownerOf = (env: Env): string => (changeEnv(env).change as HookChange).old.owner;

/** A changed hook's owner and what is known of the requester's rights over it. */
export interface OwnerView {
  readonly owner: Str;
  /** The requester is an identity the policy registers for the owner. */
  readonly actsFor: Bool;
  /** RBAC allows the requester remove on hookowners/<owner> through a grant naming it (not wildcard rights). */
  readonly rbacNamed: Bool;
}

/** The JavaScript of the leaves, whatever owner their CEL names. */
const actsForJs = (env: Env): boolean => {
  const { policy, input } = changeEnv(env);
  return registeredActor(policy, input.userInfo, ownerOf(env));
};
const rbacNamedJs = (env: Env): boolean => {
  const owner = ownerOf(env);
  const ownership = changeEnv(env).input.context?.ownership;
  return owner !== '' && ownership !== undefined && ownValue(ownership.access, owner) === 'allowed';
};

/**
 * The k-th owner of `family` RBAC is asked about: variables.<family><k> (cel/changed-hooks.ts rbacVariables), never
 * one the requester acts for by the registry (the family leaves those out), allowed by name when its check allows
 * and the probe owner's does not (rights over every owner name are wildcard rights, not a grant naming it).
 */
export function askedOwner(family: string, k: number): OwnerView {
  return {
    owner: leaf(celVariable(`${family}${k}`), ownerOf),
    actsFor: FALSE,
    rbacNamed: leaf(cel`(${celVariable(`${family}Granted${k}`)} && !variables.wildcardRights)`, rbacNamedJs),
  };
}

/**
 * Any changed hook's owner `o` (variables.changedOwners' element): RBAC's answer about it is its own validation's
 * (askedOwner), so here an owner asked about counts as allowed and one not asked about (an empty owner, break-glass,
 * past MAX_OWNERS_CHECKED) as not.
 */
export function otherOwner(family: string): OwnerView {
  return {
    owner: leaf(cel`o`, ownerOf),
    actsFor: leaf(cel`o in variables.actsFor`, actsForJs),
    rbacNamed: leaf(cel`(o != '' && o in ${celVariable(`${family}Checked`)})`, rbacNamedJs),
  };
}

/** A changed hook as a message reads it. */
export interface ChangeVar {
  readonly stage: Str;
  readonly name: Str;
  readonly owner: Str;
  readonly ownerless: Bool;
  /** Still there with another owner, not removed. */
  readonly reowned: Bool;
}

/** A changed hook whose CEL is native mode's view of it (`c`), its JavaScript the change being judged. */
export function changeVar(c: ChangedHookCel): ChangeVar {
  const change = (env: Env): HookChange => changeEnv(env).change as HookChange;
  return {
    stage: leaf(c.stage, (env) => change(env).old.stage),
    name: leaf(c.name, (env) => change(env).old.name),
    owner: leaf(c.owner, (env) => change(env).old.owner),
    ownerless: leaf(c.ownerless, (env) => change(env).old.owner === ''),
    reowned: leaf(c.reowned, (env) => change(env).now !== undefined),
  };
}

/** What every webhook-side environment of a rule shape carries (HookEnv, ChangeEnv). */
interface FactsEnv {
  readonly policy: Policy;
  readonly input: ReviewInput;
}
const facts = (env: Env): FactsEnv => env as unknown as FactsEnv;

/**
 * The owner is protected: the policy registers it, or (the webhook only: CEL cannot list the cluster's RBAC) a grant
 * of the transport's index names it. An empty owner has no name to register or grant.
 */
export function ownerProtected(owner: Str): Bool {
  return leaf(cel`${owner.cel} in variables.registered`, (env) => {
    const { policy, input } = facts(env);
    return isProtected(policy, input.context?.ownership, owner.js(env));
  });
}

/** What a refusal says of RBAC's grants: listed, not listed yet, or not consulted (native mode never lists them). */
export const RBAC_NOTE: Str = leaf(celString(RBAC_NOTES.notConsulted), (env) => {
  const ownership = facts(env).input.context?.ownership;
  if (!ownership) return RBAC_NOTES.notConsulted;
  return ownership.grantsKnown ? RBAC_NOTES.known : RBAC_NOTES.notListed;
});
