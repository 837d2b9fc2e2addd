// Every way native mode decides or speaks differently from the webhook for this policy, as values: the rule, render's
// sentence, and for a difference of verdict the requests it concerns (a predicate over the review), so no divergence
// is silent (render prints the sentences; the README lists them) and the e2e corpus excuses a difference only where
// a divergence covers that very request.
import { carrierFor, wellFormed } from '../core/carriers.js';
import {
  addedHooks,
  changedHooks,
  judgedAdditions,
  MAX_OWNERS_CHECKED,
  registeredIdentities,
} from '../core/ownership.js';
import { mirroredAdditions, mirroredRemovals, twinHooksLeftOut } from '../core/migration.js';
import { serviceAccountUsername, type Policy } from '../core/policy.js';
import { RULES } from '../core/registry.js';
import { changesWhatRulesRead } from '../core/update-reads.js';
import type { ReviewInput, RuleId } from '../core/types.js';

export interface Divergence {
  /**
   * The rule whose decision or words differ; 'messages' for what the API server does to every rule's words;
   * 'namespaces' for what the registrations, not the rules, leave unguarded.
   */
  rule: RuleId | 'messages' | 'namespaces';
  /** One sentence; render prints `<rule>: <text>`. */
  text: string;
  /**
   * The requests on which native mode's verdict may differ from the webhook's (only where `rule` decides them);
   * absent: only the words differ (messages, warnings, audit keys), never the verdict.
   */
  verdictDiffers?: (input: ReviewInput) => boolean;
  /**
   * For a divergence of words only: the requests on which native mode's denial or warnings may be worded otherwise
   * than the webhook's (only where `rule` decides them); absent: words that differ on every request, or none.
   */
  wordsDiffer?: (input: ReviewInput) => boolean;
}

/** The sentence render prints for a divergence. */
export function noteText(d: Divergence): string {
  return `${d.rule}: ${d.text}`;
}

/** The well-formed hooks of an object, if its kind carries hooks. */
function hooksOf(input: ReviewInput, which: 'object' | 'oldObject') {
  const carrier = carrierFor(input.kind);
  return carrier ? wellFormed(carrier.read(input[which]).hooks) : [];
}

const unregistered = (policy: Policy, _input: ReviewInput | undefined, owner: string): boolean =>
  owner !== '' && registeredIdentities(policy, owner) === undefined;

/**
 * An unregistered owner an RBAC grant may protect: any, unless the review carries the grants the webhook's
 * transport indexed (then only a granted one).
 */
const maybeGranted = (policy: Policy, input: ReviewInput, owner: string): boolean => {
  const ownership = input.context?.ownership;
  return unregistered(policy, input, owner) && (!ownership?.grantsKnown || ownership.granted.has(owner));
};

/**
 * A request adding, where squatting is judged, a hook of an owner the policy neither registers nor reserves (RBAC may
 * guard it: the webhook refuses whom RBAC does not allow, native mode cannot tell it is guarded).
 */
function addsGrantedOnly(policy: Policy): (input: ReviewInput) => boolean {
  return (input) => {
    const carrier = carrierFor(input.kind);
    if (!carrier) return false;
    return judgedAdditions(policy, input, carrier).some(
      (h) => maybeGranted(policy, input, h.owner) && !policy.reservedHooks.some((r) => r.owner === h.owner),
    );
  };
}

/** An UPDATE removing or re-owning a hook of an owner the policy does not register (RBAC may protect it). */
function removesUnregistered(policy: Policy): (input: ReviewInput) => boolean {
  return (input) => {
    if (input.operation !== 'UPDATE' || input.oldObject === null) return false;
    const carrier = carrierFor(input.kind);
    if (!carrier) return false;
    const changes = changedHooks(carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks);
    return changes.some((c) => maybeGranted(policy, input, c.old.owner));
  };
}

/**
 * A hook of the new object with an owner the policy does not register, that the stored object did not have in that
 * stage with that owner: what strictOwners judges (an unchanged hook passes in both).
 */
function addsUnregistered(
  policy: Policy,
  which: (policy: Policy, input: ReviewInput, owner: string) => boolean,
): (input: ReviewInput) => boolean {
  return (input) => {
    const carrier = carrierFor(input.kind);
    if (!carrier) return false;
    const added = addedHooks(carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks);
    return added.some((h) => which(policy, input, h.owner));
  };
}

/**
 * A stage of the new object, or of the stored one on UPDATE, naming one hook twice: CEL indexes both by identity
 * (Hook.id), so a list with a name twice fails the index. Annotation keys are unique, so never on Cluster API.
 */
function namesAHookTwice(input: ReviewInput): boolean {
  const twice = (hooks: ReturnType<typeof hooksOf>): boolean => {
    const seen = new Set<string>();
    for (const h of hooks) {
      const key = `${h.stage}\u0000${h.id}`;
      if (seen.has(key)) return true;
      seen.add(key);
    }
    return false;
  };
  return twice(hooksOf(input, 'object')) || (input.operation === 'UPDATE' && twice(hooksOf(input, 'oldObject')));
}

/**
 * An UPDATE in which the webhook allows a synchronizer's removal or addition as a mirror of the authoritative twin's,
 * or a CREATE it judges against the twin it read (a copy leaving out the twin's hooks, or a twin it could not read).
 */
function mirrorsARemoval(policy: Policy): (input: ReviewInput) => boolean {
  return (input) => {
    const left = twinHooksLeftOut(policy, input);
    if (left) return left.unread !== undefined || left.hooks.length > 0;
    const mirrored = mirroredRemovals(policy, input);
    const added = mirroredAdditions(policy, input);
    const carrier = carrierFor(input.kind);
    if (!mirrored || !added || !carrier) return false;
    const [hooks, oldHooks] = [carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks];
    return changedHooks(hooks, oldHooks).some(mirrored) || judgedAdditions(policy, input, carrier).some(added);
  };
}

/** A removal, re-owning or squat whose denial CEL cannot word as the webhook does (the kubectl grant). */
function grantUnworded(policy: Policy): (input: ReviewInput) => boolean {
  // As grantVariables (src/core/rules/owner-only-removal/cel-messages.ts) decides where it can build the grant command.
  const plain = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
  const serviceAccount = /^system:serviceaccount:[a-z0-9]([a-z0-9.-]*[a-z0-9])?:[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
  return (input) => {
    const carrier = carrierFor(input.kind);
    if (!carrier) return false;
    const user = input.userInfo.username;
    const worded = user.length <= 100 && (plain.test(user) || serviceAccount.test(user));
    // A squat's denial names the grant the same way (owner-additions.ts).
    const owners = judgedAdditions(policy, input, carrier).map((h) => h.owner);
    if (input.operation === 'UPDATE' && input.oldObject !== null)
      for (const c of changedHooks(carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks))
        owners.push(c.old.owner);
    return owners.some((o) => !worded || unregistered(policy, input, o));
  };
}

/** Characters CEL's strings.quote writes otherwise than JSON: control characters without a short escape in both. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const QUOTED_OTHERWISE = /[\u0000-\u0007\u000b\u000e-\u001f\ud800-\udfff]/;

/** A request whose hook names, owners, annotation keys or user name hold such a character. */
function quotedOtherwise(input: ReviewInput): boolean {
  if (QUOTED_OTHERWISE.test(input.userInfo.username)) return true;
  const carrier = carrierFor(input.kind);
  if (!carrier) return false;
  return [input.object, input.operation === 'UPDATE' ? input.oldObject : null].some((o) =>
    carrier
      .read(o)
      .hooks.some((h) => [h.name, h.owner, h.key].some((t) => typeof t === 'string' && QUOTED_OTHERWISE.test(t))),
  );
}

/** The rules on at admission whose CEL reads a list carrier's index of hooks by name, as each declares it. */
function readsNameIndex(policy: Policy): RuleId[] {
  return RULES.filter(
    (rule) =>
      policy.enforcement[rule.id] !== 'off' &&
      rule.sources.includes('admission') &&
      rule.native !== undefined &&
      'validating' in rule.native &&
      rule.native.readsNameIndex,
  ).map((rule) => rule.id);
}

export function divergences(policy: Policy): Divergence[] {
  const out: Divergence[] = [];
  const on = (id: keyof Policy['enforcement']): boolean => policy.enforcement[id] !== 'off';
  if (policy.children.length > 0) {
    for (const rule of RULES) {
      if (rule.native && 'webhookOnly' in rule.native && on(rule.id))
        // Native mode never runs it: every request it decides may be decided otherwise.
        out.push({ rule: rule.id, text: rule.native.webhookOnly, verdictDiffers: () => true });
    }
  }
  if (on('owner-only-removal')) {
    out.push({
      rule: 'owner-only-removal',
      text: 'native mode guards only owners the policy registers or reserves against squatting, as CEL sees no RBAC grant: a hook of an owner protected only by a grant of remove on hookowners.hookkeeper.io, added to an existing object or a template by someone RBAC does not let act for it, is allowed where the webhook refuses it; register such owners',
      verdictDiffers: addsGrantedOnly(policy),
    });
    if (policy.unverifiedRemoval !== 'deny') {
      out.push({
        rule: 'owner-only-removal',
        text: `CEL cannot list the cluster's RBAC, so an owner protected only by a grant of remove on hookowners.hookkeeper.io (not registered in the policy) is treated as unprotected: a removal RBAC does not allow gets unverifiedRemoval's outcome (${policy.unverifiedRemoval}) where the webhook denies it; register such owners or set unverifiedRemoval: deny`,
        verdictDiffers: removesUnregistered(policy),
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
        verdictDiffers: addsUnregistered(policy, maybeGranted),
        wordsDiffer: addsUnregistered(policy, unregistered),
      });
    }
  }
  if (on('single-owner')) {
    out.push({
      rule: 'single-owner',
      text: 'a Machine API stage naming one hook twice, in the object or the stored object, cannot be indexed by name in CEL and is refused with CEL\'s "key already exists" error, ratcheting aside (the Machine API CRDs\' list-map key refuses such objects first); Cluster API hooks are indexed by annotation key, which is unique',
      verdictDiffers: namesAHookTwice,
    });
  }
  for (const rule of readsNameIndex(policy)) {
    if (rule === 'single-owner') continue;
    out.push({
      rule,
      text: 'a Machine API stage naming one hook twice, in the object or the stored object, cannot be indexed by name in CEL, so this check fails with CEL\'s "key already exists" error (refusing the request under deny, a warning under warn) where the webhook judges the hooks (the Machine API CRDs\' list-map key refuses such objects first)',
      verdictDiffers: namesAHookTwice,
    });
  }
  if (on('hook-naming')) {
    out.push({
      rule: 'hook-naming',
      text: 'a Cluster API key that only starts with a hook prefix gets the "must be <prefix>/<name>" message first, where the webhook lists any qualified-name problem before it',
    });
  }
  out.push({
    rule: 'namespaces',
    text: "the native policies guard every namespace: they depend on no pod, so none has to stay open; a webhook leaves open only the namespace it runs in (webhook-config render --namespace, the Helm release's namespace, the kustomize base's hookkeeper), so in both modes a Machine there is guarded by these policies alone",
  });
  out.push({
    rule: 'messages',
    text: "values are quoted by CEL's strings.quote, which writes a control character as Go does (\\a, \\v) or unescaped, where the webhook's JSON quoting writes \\u00XX (and a lone UTF-16 surrogate \\udXXX)",
    wordsDiffer: quotedOtherwise,
  });
  out.push({
    rule: 'messages',
    text: "an UPDATE that changes nothing a rule reads (the changes-what-rules-read condition, the webhook's and each native ValidatingAdmissionPolicy's) is neither sent to the webhook nor validated by the native policies, so it gets none of the warnings about what was already stored (a ratcheted violation, a missing default hook under warn); `hookkeeper review`, the audit and validate still report them",
    wordsDiffer: (input) => !changesWhatRulesRead(policy, input),
  });
  out.push({
    rule: 'messages',
    text: "the API server reports only the first failing validation, so where the webhook joins several violations ('a; b') native mode names the first; warnings come one per validation (one per owner for unverified removals, one per request for break-glass) rather than one per hook; the API server prefixes each with the policy and binding names and, once they pass 4,096 characters in all, cuts each to 256 (the webhook cuts each to 120 itself)",
  });
  return out;
}

/**
 * The divergences that excuse native mode's other verdict on this request: the rule is one of those that decided it,
 * and the divergence says the verdict differs on such a request. A note about words alone excuses no verdict.
 */
export function covering(found: readonly Divergence[], decidedBy: readonly string[], input: ReviewInput): Divergence[] {
  return found.filter((d) => decidedBy.includes(d.rule) && d.verdictDiffers !== undefined && d.verdictDiffers(input));
}

/** One sentence per divergence, as render prints them. */
export function divergenceNotes(policy: Policy): string[] {
  return divergences(policy).map(noteText);
}
