// Where native mode decides or words owner-only-removal otherwise than the webhook: CEL sees no RBAC grant, no twin,
// and words a grant only where it can build it.
import type { Divergence } from '../../core/divergence.js';
import { carrierFor, wellFormed } from '../../core/carriers.js';
import { strictOwners } from './strict-owners.js';
import { judgedAdditions, MAX_OWNERS_CHECKED, ownedChanges, registeredIdentities } from '../../core/ownership.js';
import { twinHooksLeftOut } from '../../core/migration.js';
import { ownerAdditions } from './additions.js';
import { removalDecidedBy } from './routes.js';
import { grantWordedFor } from './cel-messages.js';
import { serviceAccountUsername, type Policy } from '../../core/policy.js';
import type { ReviewContext, ReviewInput } from '../../core/types.js';

const unregistered = (policy: Policy, _input: ReviewInput | undefined, owner: string): boolean =>
  owner !== '' && registeredIdentities(policy, owner) === undefined;

/**
 * What the squatting check (./additions.ts) says of `input`'s additions: its refusals and warnings, in order. Two
 * reviews it judges alike give the same outcome, whatever audit keys they leave.
 */
function additionOutcome(policy: Policy, input: ReviewInput): string {
  const carrier = carrierFor(input.kind);
  if (!carrier) return '';
  const [hooks, oldHooks] = [carrier.read(input.object), carrier.read(input.oldObject)];
  const { violations, notices } = ownerAdditions({ policy, input, carrier, hooks, oldHooks });
  return JSON.stringify([violations.map((v) => v.key), notices.flatMap((n) => n.warning ?? [])]);
}

/**
 * The squatting check judges `input` otherwise without the webhook-only fact `fact` (what CEL cannot have): the RBAC
 * grants the transport indexed (native mode guards only owners the policy registers or reserves), or the twin a
 * synchronizer mirrors. Without the grants, RBAC's answers stay: CEL asks the authorizer too.
 */
function factDecidesAdditions(policy: Policy, fact: 'grants' | 'twin'): (input: ReviewInput) => boolean {
  return (input) => {
    const context = input.context ?? {};
    const { ownership } = context;
    const without: ReviewContext =
      fact === 'twin'
        ? Object.fromEntries(Object.entries(context).filter(([k]) => k !== 'twin'))
        : { ...context, ...(ownership ? { ownership: { ...ownership, granted: new Set<string>() } } : {}) };
    return additionOutcome(policy, input) !== additionOutcome(policy, { ...input, context: without });
  };
}

/**
 * An UPDATE whose removals or re-ownings the route list (./routes.ts) decides otherwise with no RBAC grant (what CEL
 * sees) than with the most the webhook may see: the grants its transport indexed, else every owner it changes (an
 * owner the policy does not register, which RBAC may protect, and a user nothing else lets act for it).
 */
function grantsDecideRemovals(policy: Policy): (input: ReviewInput) => boolean {
  return (input) => {
    const ownership = input.context?.ownership;
    if (ownership?.grantsKnown) return removalDecidedBy(policy, input, 'grants');
    const carrier = carrierFor(input.kind);
    if (!carrier || input.operation !== 'UPDATE' || input.oldObject === null) return false;
    const [hooks, oldHooks] = [carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks];
    const owners = ownedChanges(policy, carrier, hooks, oldHooks).map((c) => c.old.owner);
    const most = { granted: new Set(owners), access: ownership?.access ?? {}, grantsKnown: true };
    return removalDecidedBy(policy, { ...input, context: { ...input.context, ownership: most } }, 'grants');
  };
}

/**
 * How many hooks strictOwners refuses in `input` when RBAC grants exactly `granted`: its own check, asked with the
 * grants CEL sees (none) and with the most the webhook may see, so what differs is its predicate's, not a second one.
 */
function strictRefusals(policy: Policy, input: ReviewInput, granted: (owners: string[]) => ReadonlySet<string>) {
  const carrier = carrierFor(input.kind);
  if (!carrier) return 0;
  const [hooks, oldHooks] = [carrier.read(input.object), carrier.read(input.oldObject)];
  const ownership = { granted: granted(wellFormed(hooks.hooks).map((h) => h.owner)), access: {}, grantsKnown: true };
  const judged = { ...input, context: { ...input.context, ownership } };
  return strictOwners.validate({ policy, input: judged, carrier, hooks, oldHooks }).violations.length;
}

/**
 * strictOwners refuses a hook native mode would accept, or the reverse, depending on RBAC's grants: added with an owner
 * the policy does not register, that a grant may protect (any, unless the review carries the grants the webhook's
 * transport indexed; `known`) or, for the words, any grant (a refusal says whether RBAC was consulted).
 */
function grantsDecideStrictOwners(policy: Policy, known: boolean): (input: ReviewInput) => boolean {
  const none = () => new Set<string>();
  return (input) => {
    const ownership = input.context?.ownership;
    const most = (owners: string[]) => (known && ownership?.grantsKnown ? ownership.granted : new Set(owners));
    return strictRefusals(policy, input, none) !== strictRefusals(policy, input, most);
  };
}

/**
 * An UPDATE in which the webhook allows a synchronizer's removal or addition as a mirror of the authoritative twin's,
 * or a CREATE it judges against the twin it read (a copy leaving out the twin's hooks, or a twin it could not read).
 */
function mirrorsARemoval(policy: Policy): (input: ReviewInput) => boolean {
  const additionsMirrored = factDecidesAdditions(policy, 'twin');
  return (input) => {
    const left = twinHooksLeftOut(policy, input);
    if (left) return left.unread !== undefined || left.hooks.length > 0;
    // The removals: where the route list's mirror route, which reads the twin, decides (./routes.ts).
    if (removalDecidedBy(policy, input, 'twin')) return true;
    // The additions: where the squatting check, run without the twin, judges otherwise.
    return additionsMirrored(input);
  };
}

/** A removal, re-owning or squat whose denial CEL cannot word as the webhook does (the kubectl grant). */
function grantUnworded(policy: Policy): (input: ReviewInput) => boolean {
  return (input) => {
    const carrier = carrierFor(input.kind);
    if (!carrier) return false;
    const worded = grantWordedFor(input.userInfo.username);
    // A squat's denial names the grant the same way (./additions.ts).
    const owners = judgedAdditions(policy, input, carrier).map((h) => h.owner);
    if (input.operation === 'UPDATE' && input.oldObject !== null)
      for (const c of ownedChanges(
        policy,
        carrier,
        carrier.read(input.object).hooks,
        carrier.read(input.oldObject).hooks,
      ))
        owners.push(c.old.owner);
    return owners.some((o) => !worded || unregistered(policy, input, o));
  };
}

export function ownerOnlyRemovalDivergences(policy: Policy): Divergence[] {
  const out: Divergence[] = [];
  out.push({
    rule: 'owner-only-removal',
    text: 'native mode guards only owners the policy registers or reserves against squatting, as CEL sees no RBAC grant: a hook of an owner protected only by a grant of remove on hookowners.hookkeeper.io, added to an existing object or a template by someone RBAC does not let act for it, is allowed where the webhook refuses it; register such owners',
    verdictDiffers: factDecidesAdditions(policy, 'grants'),
  });
  if (policy.unverifiedRemoval !== 'deny') {
    out.push({
      rule: 'owner-only-removal',
      text: `CEL cannot list the cluster's RBAC, so an owner protected only by a grant of remove on hookowners.hookkeeper.io (not registered in the policy) is treated as unprotected: a removal RBAC does not allow gets unverifiedRemoval's outcome (${policy.unverifiedRemoval}) where the webhook denies it; register such owners or set unverifiedRemoval: deny`,
      verdictDiffers: grantsDecideRemovals(policy),
    });
  }
  out.push({
    rule: 'owner-only-removal',
    text: `RBAC is asked about at most ${MAX_OWNERS_CHECKED} owners per request, as by the webhook, each through CEL's authorizer in the request's namespace; a removal allowed by the registry or RBAC leaves no hook-removal audit annotation, and break-glass, wildcard (wildcardGrants: warn) and unverified removals are audited through the binding's Audit action (validation.policy.admission.k8s.io/validation_failure), not the webhook's keys`,
  });
  out.push({
    rule: 'owner-only-removal',
    text: "the denial (of a removal, or of a hook added under an owner's name) suggests the exact kubectl grant only for a registered owner and a lower-case username or service account; otherwise it names the grant (remove on hookowners.hookkeeper.io with the owner as resourceName)",
    wordsDiffer: grantUnworded(policy),
  });
  if (policy.migration.synchronizers.length > 0) {
    const who = policy.migration.synchronizers.map(serviceAccountUsername).join(', ');
    out.push({
      rule: 'owner-only-removal',
      text: `CEL cannot look up the other copy of a migrated Machine, so native mode cannot tell that the synchronizer's (${who}) removal of a hook from the non-authoritative copy mirrors the owner's removal on the authoritative one, or that its addition of a registered owner's hook mirrors the hook there: it judges it as any other identity's removal or addition (refused for a protected owner, unverifiedRemoval's outcome for an unprotected one) where the webhook allows it; and it cannot see that a Machine created in a migration namespace leaves out hooks its twin carries, which the webhook refuses (such a copy would otherwise pass as the authoritative copy the owner emptied): native mode allows it, and having no mirror route, gives it nothing to prove; run the webhook during a migration`,
      verdictDiffers: mirrorsARemoval(policy),
    });
  }
  if (policy.strictOwners) {
    out.push({
      rule: 'owner-only-removal',
      text: 'under strictOwners, native mode accepts only owners registered in the policy, as CEL cannot list RBAC grants: an owner granted only through RBAC is refused where the webhook accepts it, and a refusal says RBAC was not consulted; register it',
      verdictDiffers: grantsDecideStrictOwners(policy, true),
      wordsDiffer: grantsDecideStrictOwners(policy, false),
    });
  }
  return out;
}
