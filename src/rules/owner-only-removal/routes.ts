// owner-only-removal's removal decision, declared once: the routes a hook an UPDATE removes or re-owns may take, in
// order, each a condition over named inputs, an outcome, an audit key and its words; the first that holds decides.
// The webhook runs them hook by hook (rule.ts); native mode's CEL asks them which owners it denies or warns about
// unless RBAC allows and what wildcard rights come to (cel.ts); an input only the webhook has is declared so here,
// and what it decides is native mode's divergence (divergences.ts).
import { carrierFor } from '../../core/carriers.js';
import { mirroredRemovals } from '../../core/migration.js';
import type { Reason } from './reasons.js';
import { OwnerEnv } from './owner-env.js';
import { firstHolding, routeFor, routeForFacts as routeForFactsOf } from './route-list.js';
import { ownedChanges, registeredActor, registeredIdentities, type HookChange } from '../../core/ownership.js';
import {
  breakGlassWarning,
  grantsUnknownReason,
  offlineOwnerOnlyReason,
  offlineUnverifiedDenyReason,
  ownerOnlyReason,
  unverifiedDenyReason,
  unverifiedWarning,
  wildcardReason,
  wildcardWarning,
  type ChangedHook,
} from '../../core/messages/ownership.js';
import type { Message } from '../../core/messages/message.js';
import type { Policy } from '../../core/policy.js';
import type { ReviewInput } from '../../core/types.js';
import { cel, type Cel } from '../../core/cel/text.js';
import { and, FALSE, leaf, not, or, TRUE, type Bool, type Env } from '../../core/expr/expr.js';

/** What a route reads of one changed hook, its owner and the request. */
export type RemovalInput =
  | 'actsFor' // the requester is an identity the policy registers for the owner
  | 'mirrored' // the migration's synchronizer carries over the owner's removal from the authoritative copy
  | 'breakGlass' // the requester holds break-glass
  | 'rbacNamed' // RBAC allows the requester through a grant naming the owner
  | 'wildcard' // RBAC allows the requester through rights over every owner name
  | 'registered' // the policy registers the owner
  | 'granted' // an RBAC grant names the owner (the transport's index of grants)
  | 'grantsUnknown'; // RBAC was consulted, its grants not listed yet

/** A fact only the webhook's transport gathers: the migration twin, and the listing of RBAC's grants. */
export type WebhookFact = 'twin' | 'grants';

/** The inputs CEL cannot have, each with the fact it reads: native mode reads them as false. */
export const WEBHOOK_ONLY: Readonly<Partial<Record<RemovalInput, WebhookFact>>> = Object.freeze({
  mirrored: 'twin',
  granted: 'grants',
  grantsUnknown: 'grants',
});

export type RemovalOutcome = 'allow' | 'warn' | 'deny' | 'breakGlass';

export type RemovalRouteName =
  | 'registry'
  | 'mirror'
  | 'break-glass'
  | 'rbac'
  | 'wildcard'
  | 'wildcard-denied'
  | 'protected'
  | 'grants-unknown'
  | 'unverified';

interface RouteHead {
  /** The audit annotation's value gives it as `route`. */
  name: RemovalRouteName;
  holds: Bool;
}
/** A route that allows, leaving an audit annotation under `audit` if it names one. */
interface AllowRoute extends RouteHead {
  outcome: 'allow';
  audit?: string;
}
/** A route that allows with a warning, audited. */
interface WarnRoute extends RouteHead {
  outcome: 'warn' | 'breakGlass';
  audit: string;
  warning: Message<ChangedHook>;
}
/** A route that denies: its reason follows the hook's words (removalDenialMessage). */
export interface DenyRoute extends RouteHead {
  outcome: 'deny';
  reason: Reason;
}
export type Route = AllowRoute | WarnRoute | DenyRoute;

export const AUDIT_KEY_BREAK_GLASS = 'break-glass-hook-removal';
/** A removal allowed because the user acts for the owner (route registry or rbac): audit annotation only. */
export const AUDIT_KEY_REMOVAL = 'hook-removal';
/** A removal of an unprotected owner's hook, allowed under unverifiedRemoval: warn. */
export const AUDIT_KEY_UNVERIFIED = 'unverified-hook-removal';
/** A synchronizer's removal of a hook already gone from the authoritative copy of a migrated Machine. */
export const AUDIT_KEY_MIRROR = 'hook-mirror-removal';
/** A removal allowed by wildcard RBAC rights alone, under wildcardGrants: warn. */
export const AUDIT_KEY_WILDCARD = 'wildcard-hook-removal';

/**
 * The routes, in order, for a policy (its knobs are constants in the conditions) and a table of the inputs: the
 * webhook's readings, or native mode's view of them (removalRoutes, silentOwnerRoutes).
 */
function declare(policy: Policy, i: Readonly<Record<RemovalInput, Bool>>): Route[] {
  const unverified = policy.unverifiedRemoval;
  return [
    { name: 'registry', holds: i.actsFor, outcome: 'allow', audit: AUDIT_KEY_REMOVAL },
    // The owner already removed it on the authoritative copy: this is that removal, carried over.
    { name: 'mirror', holds: i.mirrored, outcome: 'allow', audit: AUDIT_KEY_MIRROR },
    {
      name: 'break-glass',
      holds: i.breakGlass,
      outcome: 'breakGlass',
      audit: AUDIT_KEY_BREAK_GLASS,
      warning: breakGlassWarning,
    },
    { name: 'rbac', holds: i.rbacNamed, outcome: 'allow', audit: AUDIT_KEY_REMOVAL },
    // Rights over every owner name: not ownership. Under warn they pass, audited as break-glass is; under deny they
    // count as no answer of RBAC's, and a denial says so.
    {
      name: 'wildcard',
      holds: policy.wildcardGrants === 'warn' ? i.wildcard : FALSE,
      outcome: 'warn',
      audit: AUDIT_KEY_WILDCARD,
      warning: wildcardWarning,
    },
    {
      name: 'wildcard-denied',
      holds: and(i.wildcard, or(unverified === 'deny' ? TRUE : FALSE, i.registered, i.granted, i.grantsUnknown)),
      outcome: 'deny',
      // The owner's controller's grant, whoever asks: the requester's rights are not what is missing.
      reason: { message: wildcardReason, grant: 'controller' },
    },
    {
      name: 'protected',
      holds: or(i.registered, i.granted),
      outcome: 'deny',
      reason: { message: ownerOnlyReason, offline: offlineOwnerOnlyReason, grant: 'requester' },
    },
    // RBAC consulted, its grants not listed: the owner may be protected, so no unverifiedRemoval outcome applies.
    // When the user's access went unanswered too, one sentence says both (not "could not be checked" twice).
    {
      name: 'grants-unknown',
      holds: i.grantsUnknown,
      outcome: 'deny',
      reason: { message: grantsUnknownReason, grant: 'requester' },
    },
    // Nothing verified: the policy's unverifiedRemoval.
    unverified === 'warn'
      ? { name: 'unverified', holds: TRUE, outcome: 'warn', audit: AUDIT_KEY_UNVERIFIED, warning: unverifiedWarning }
      : unverified === 'deny'
        ? {
            name: 'unverified',
            holds: TRUE,
            outcome: 'deny',
            reason: { message: unverifiedDenyReason, offline: offlineUnverifiedDenyReason, grant: 'requester' },
          }
        : { name: 'unverified', holds: TRUE, outcome: 'allow' },
  ];
}

/** What the webhook's inputs read: the request, its facts, and the change being judged. */
export class RemovalEnv extends OwnerEnv {
  change!: HookChange;
  constructor(
    policy: Policy,
    input: ReviewInput,
    /** The synchronizer's mirrored removals (src/core/migration.ts), when any can be. */
    readonly mirrored: ((change: HookChange) => boolean) | undefined,
  ) {
    super(policy, input);
  }
  enter(change: HookChange): void {
    this.change = change;
    this.judge(change.old.owner);
  }
}

const env = (e: Env): RemovalEnv => e as RemovalEnv;
const ownerOf = (e: Env): string => env(e).change.old.owner;

/** The policy registers the changed hook's owner; `o` the owner in CEL. */
function registeredFor(o: Cel): Bool {
  return leaf(cel`${o} in variables.registered`, (e) => {
    const owner = ownerOf(e);
    return owner !== '' && registeredIdentities(env(e).policy, owner) !== undefined;
  });
}

/**
 * The webhook's readings. Their CEL is native mode's view of the same fact for a changed hook's owner `o` where it
 * has one; RBAC's answers are asked per owner in CEL (cel/changed-hooks.ts's families), so here they read as an
 * owner RBAC did not allow, and the webhook-only inputs as false.
 */
const WEBHOOK_INPUTS: Readonly<Record<RemovalInput, Bool>> = Object.freeze({
  actsFor: leaf(cel`o in variables.actsFor`, (e) => registeredActor(env(e).policy, env(e).input.userInfo, ownerOf(e))),
  mirrored: leaf(cel`false`, (e) => env(e).mirrored?.(env(e).change) ?? false),
  breakGlass: leaf(cel`variables.breakGlass`, (e) => env(e).breakGlass),
  rbacNamed: leaf(cel`false`, (e) => env(e).access === 'allowed'),
  wildcard: leaf(cel`false`, (e) => env(e).access === 'wildcard'),
  registered: registeredFor(cel`o`),
  granted: leaf(cel`false`, (e) => {
    const owner = ownerOf(e);
    return owner !== '' && (env(e).ownership?.granted.has(owner) ?? false);
  }),
  grantsUnknown: leaf(cel`false`, (e) => {
    const ownership = env(e).ownership;
    return ownerOf(e) !== '' && ownership !== undefined && !ownership.grantsKnown;
  }),
});

const compiled = new WeakMap<Policy, Map<string, readonly Route[]>>();

/**
 * The routes the webhook takes, compiled once per policy; with `hidden`, as if the transport had not gathered that
 * fact (its inputs false): what native mode, which cannot have it, would decide.
 */
export function removalRoutes(policy: Policy, hidden?: WebhookFact): readonly Route[] {
  let byHidden = compiled.get(policy);
  if (!byHidden) compiled.set(policy, (byHidden = new Map<string, readonly Route[]>()));
  const key = hidden ?? '';
  let routes = byHidden.get(key);
  if (!routes) {
    const table = { ...WEBHOOK_INPUTS };
    for (const [input, fact] of Object.entries(WEBHOOK_ONLY)) if (fact === hidden) table[input as RemovalInput] = FALSE;
    byHidden.set(key, (routes = declare(policy, table)));
  }
  return routes;
}

/** Every input of a route, each known: what the list decides for a change where nothing is left to read. */
export type RemovalFacts = Readonly<Record<RemovalInput, boolean>>;

const INPUTS = Object.keys(WEBHOOK_INPUTS) as RemovalInput[];

/** The route the list takes for a change whose inputs are all given; kept per policy. */
export const routeForFacts: (policy: Policy, facts: RemovalFacts) => Route = routeForFactsOf(INPUTS, declare);

/**
 * Native mode's view of an owner nothing before RBAC settled (neither the registry's nor break-glass's) and RBAC did
 * not allow by name, with or without wildcard rights: the webhook-only inputs false, the registry as CEL reads it.
 */
function silentOwnerRoutes(policy: Policy, wildcard: Bool, registered: Bool): Route[] {
  return declare(policy, {
    actsFor: FALSE,
    mirrored: FALSE,
    breakGlass: FALSE,
    rbacNamed: FALSE,
    wildcard,
    registered,
    granted: FALSE,
    grantsUnknown: FALSE,
  });
}

/**
 * The owners (a CEL condition on `o`) whose hook native mode gives `outcome` unless RBAC allows: the routes as a
 * decision list over what CEL knows of such an owner, each route of that outcome holding where no earlier route
 * of another outcome does.
 */
export function unlessRbac(policy: Policy, outcome: RemovalOutcome): Bool {
  const terms: Bool[] = [];
  const earlier: Bool[] = [];
  for (const r of silentOwnerRoutes(policy, FALSE, WEBHOOK_INPUTS.registered)) {
    if (r.holds === FALSE) continue;
    if (r.outcome === outcome) terms.push(and(r.holds, ...earlier.map(not)));
    else earlier.push(r.holds);
    if (r.holds === TRUE) break;
  }
  return or(...terms);
}

/**
 * The denying routes native mode's view can take for owner `o` (a CEL string) RBAC did not allow, in order: for a
 * denied hook, the first that holds is the one taken, since a route of another outcome before it would have decided.
 */
export function nativeDenials(policy: Policy, o: Cel): DenyRoute[] {
  return firstHolding(silentOwnerRoutes(policy, FALSE, registeredFor(o)))
    .map((x) => x.route)
    .filter((r): r is DenyRoute => r.outcome === 'deny');
}

/** The route native mode's view takes for an owner RBAC allows through wildcard rights only, registered or not. */
export function wildcardRoute(policy: Policy, registered: boolean): Route {
  const routes = silentOwnerRoutes(policy, TRUE, registered ? TRUE : FALSE);
  const found = routes.find((r) => r.holds === TRUE);
  if (!found) throw new Error('owner-only-removal: the wildcard route depends on more than the registry');
  return found;
}

/**
 * Whether `fact` decides the request's removals: some hook it removes or re-owns takes a route of another outcome
 * when that fact's inputs read false, as native mode reads them. Its divergence's predicate (divergences.ts).
 */
export function removalDecidedBy(policy: Policy, input: ReviewInput, fact: WebhookFact): boolean {
  if (input.operation !== 'UPDATE' || input.oldObject === null) return false;
  const carrier = carrierFor(input.kind);
  if (!carrier?.live) return false;
  const [hooks, oldHooks] = [carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks];
  const [withFact, without] = [removalRoutes(policy), removalRoutes(policy, fact)];
  const e = new RemovalEnv(policy, input, mirroredRemovals(policy, input));
  return ownedChanges(policy, carrier, hooks, oldHooks).some((change) => {
    e.enter(change);
    return routeFor(withFact, e).outcome !== routeFor(without, e).outcome;
  });
}
