// owner-only-removal's addition decision (squatting), declared once: the routes a hook added under an owner's name
// may take, in order, each a condition over named inputs and an outcome; the first that holds decides. The webhook
// runs them hook by hook (additions.ts); native mode compiles them per guarded owner (cel-additions.ts), where an
// input only the webhook has reads false and what that decides is native mode's divergence (divergences.ts).
import { registeredActor, registeredIdentities } from '../../core/ownership.js';
import {
  breakGlassAddWarning,
  offlineOwnerOnlyReason,
  ownerOnlyReason,
  wildcardAddWarning,
  wildcardReason,
} from '../../core/messages/ownership.js';
import type { Hook } from '../../core/carriers.js';
import type { Policy } from '../../core/policy.js';
import type { ReviewInput } from '../../core/types.js';
import { cel, celString, celStringSet, type Cel } from '../../core/cel/text.js';
import { FALSE, leaf, not, or, TRUE, type Bool, type Env } from '../../core/expr/expr.js';
import type { RemovalOutcome } from './routes.js';
import { OwnerEnv } from './owner-env.js';
import { routeForFacts } from './route-list.js';
import type { Reason } from './reasons.js';

/** What an addition's route reads of the added hook's owner and the request. */
export type AdditionInput =
  | 'registered' // the policy registers the owner
  | 'reserved' // the policy reserves a hook for the owner
  | 'granted' // an RBAC grant names the owner (the transport's index of grants; webhook only)
  | 'actsFor' // the requester is an identity the policy registers for the owner
  | 'mirrored' // the migration's synchronizer mirrors the hook from the authoritative copy (webhook only)
  | 'breakGlass' // the requester holds break-glass
  | 'rbacNamed' // RBAC allows the requester through a grant naming the owner
  | 'wildcard'; // RBAC allows the requester through rights over every owner name

/** The inputs only the webhook's transport gathers (RBAC's grant listing, the migration twin): false in CEL. */
export const ADDITION_WEBHOOK_ONLY: readonly AdditionInput[] = Object.freeze(['granted', 'mirrored']);

interface Head {
  /** The audit annotation's value gives it as `route`. */
  name: 'unguarded' | 'registry' | 'mirror' | 'break-glass' | 'rbac' | 'wildcard' | 'wildcard-denied' | 'squat';
  holds: Bool;
}
export type AdditionRoute =
  | (Head & { outcome: 'allow'; audit?: string })
  | (Head & { outcome: Exclude<RemovalOutcome, 'allow' | 'deny'>; audit: string; warning: typeof breakGlassAddWarning })
  | (Head & { outcome: 'deny'; reason: Reason });

/** An addition allowed to break-glass, to wildcard rights under wildcardGrants: warn, or as a synchronizer's mirror. */
export const AUDIT_KEY_BREAK_GLASS_ADDITION = 'break-glass-hook-addition';
export const AUDIT_KEY_WILDCARD_ADDITION = 'wildcard-hook-addition';
export const AUDIT_KEY_MIRROR_ADDITION = 'hook-mirror-addition';

/**
 * A hook added under a guarded owner's name (registered, reserved or granted) makes a Machine's deletion wait for
 * that owner, so only those who act for it add it (the right that removes it: whoever can make a deletion wait can
 * end the wait), break-glass (warned, audited), or the synchronizer mirroring the authoritative copy.
 */
function declare(policy: Policy, i: Readonly<Record<AdditionInput, Bool>>): AdditionRoute[] {
  return [
    { name: 'unguarded', holds: not(or(i.registered, i.reserved, i.granted)), outcome: 'allow' },
    { name: 'registry', holds: i.actsFor, outcome: 'allow' },
    { name: 'mirror', holds: i.mirrored, outcome: 'allow', audit: AUDIT_KEY_MIRROR_ADDITION },
    {
      name: 'break-glass',
      holds: i.breakGlass,
      outcome: 'breakGlass',
      audit: AUDIT_KEY_BREAK_GLASS_ADDITION,
      warning: breakGlassAddWarning,
    },
    { name: 'rbac', holds: i.rbacNamed, outcome: 'allow' },
    {
      name: 'wildcard',
      holds: policy.wildcardGrants === 'warn' ? i.wildcard : FALSE,
      outcome: 'warn',
      audit: AUDIT_KEY_WILDCARD_ADDITION,
      warning: wildcardAddWarning,
    },
    // Rights over every owner name are not ownership: the owner's controller's grant is what is missing.
    {
      name: 'wildcard-denied',
      holds: i.wildcard,
      outcome: 'deny',
      reason: { message: wildcardReason, grant: 'controller' },
    },
    {
      name: 'squat',
      holds: TRUE,
      outcome: 'deny',
      reason: { message: ownerOnlyReason, offline: offlineOwnerOnlyReason, grant: 'requester' },
    },
  ];
}

/** What the webhook's inputs read: the request, its facts, and the added hook being judged. */
export class AdditionEnv extends OwnerEnv {
  hook!: Hook;
  constructor(
    policy: Policy,
    input: ReviewInput,
    /** The synchronizer's mirrored additions (src/core/migration.ts), when any can be. */
    readonly mirrored: ((hook: Hook) => boolean) | undefined,
  ) {
    super(policy, input);
  }
  enter(hook: Hook): void {
    this.hook = hook;
    this.judge(hook.owner);
  }
}

const env = (e: Env): AdditionEnv => e as AdditionEnv;
const reservedOwners = (policy: Policy): string[] => [...new Set(policy.reservedHooks.map((r) => r.owner))];

/** What the policy says of an owner native mode compiles for: registered, reserved (constants in its CEL). */
interface Named {
  registered: boolean;
  reserved: boolean;
}

/**
 * The inputs for an added hook's owner: `o` its CEL string, `granted` CEL's RBAC answer about it (the authorizer's,
 * for a named or a wildcard right); `named`, what the policy says of the owner when CEL compiles for one. The
 * webhook-only inputs read false in CEL.
 */
function additionInputs(policy: Policy, o: Cel, granted: Cel, named?: Named): Readonly<Record<AdditionInput, Bool>> {
  const known = (holds: boolean): Bool => (holds ? TRUE : FALSE);
  const owner = (e: Env): string => env(e).hook.owner;
  const reserved = reservedOwners(policy);
  // An ownerless hook is no one's to guard (CEL: no owner it compiles for is '').
  const someone = (test: (owner: string, e: Env) => boolean) => (e: Env) => owner(e) !== '' && test(owner(e), e);
  return {
    registered: named
      ? known(named.registered)
      : leaf(
          cel`${o} in variables.registered`,
          someone((x) => registeredIdentities(policy, x) !== undefined),
        ),
    reserved: named
      ? known(named.reserved)
      : leaf(
          cel`${o} in ${celStringSet(reserved)}`,
          someone((x) => reserved.includes(x)),
        ),
    granted: leaf(
      cel`false`,
      // Grants not listed yet: only the owners the policy names are guarded (strictOwners refuses the others).
      someone((x, e) => env(e).ownership?.grantsKnown === true && env(e).ownership?.granted.has(x) === true),
    ),
    actsFor: leaf(cel`${o} in variables.actsFor`, (e) => registeredActor(policy, env(e).input.userInfo, owner(e))),
    mirrored: leaf(cel`false`, (e) => env(e).mirrored?.(env(e).hook) ?? false),
    breakGlass: leaf(cel`variables.breakGlass`, (e) => env(e).breakGlass),
    rbacNamed: leaf(cel`(${granted} && !variables.wildcardRights)`, (e) => env(e).access === 'allowed'),
    wildcard: leaf(cel`(${granted} && variables.wildcardRights)`, (e) => env(e).access === 'wildcard'),
  };
}

const compiled = new WeakMap<Policy, readonly AdditionRoute[]>();

/** The routes the webhook takes, compiled once per policy. */
export function additionRoutes(policy: Policy): readonly AdditionRoute[] {
  let routes = compiled.get(policy);
  if (!routes) compiled.set(policy, (routes = declare(policy, additionInputs(policy, cel`o`, cel`false`))));
  return routes;
}

/**
 * The routes native mode compiles for an owner the policy names (`owner`), or for every other (undefined), RBAC's
 * answer about it `granted` (a CEL bool).
 */
export function ownerAdditionRoutes(policy: Policy, owner: string | undefined, granted: Cel): AdditionRoute[] {
  const named =
    owner === undefined
      ? { registered: false, reserved: false }
      : {
          registered: registeredIdentities(policy, owner) !== undefined,
          reserved: reservedOwners(policy).includes(owner),
        };
  const inputs = additionInputs(policy, owner === undefined ? cel`o` : celString(owner), granted, named);
  return declare(policy, { ...inputs, ...Object.fromEntries(ADDITION_WEBHOOK_ONLY.map((i) => [i, FALSE])) });
}

/** Every input of an addition's route, each known. */
export type AdditionFacts = Readonly<Record<AdditionInput, boolean>>;

/** Every input, once: a record, so an input added to AdditionInput and not here is a type error. */
const INPUTS = Object.keys({
  registered: true,
  reserved: true,
  granted: true,
  actsFor: true,
  mirrored: true,
  breakGlass: true,
  rbacNamed: true,
  wildcard: true,
} satisfies Record<AdditionInput, true>) as AdditionInput[];

/** The route the list takes where every input is given; kept per policy. */
export const additionRouteForFacts: (policy: Policy, facts: AdditionFacts) => AdditionRoute = routeForFacts(
  INPUTS,
  declare,
);
