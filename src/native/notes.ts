// Every way native mode decides or speaks differently from the webhook for this policy, as values: the rule, render's
// sentence, and for a difference of verdict the requests it concerns (a predicate over the review), so no divergence
// is silent (render prints the sentences; the README lists them) and the e2e corpus excuses a difference only where
// a divergence covers that very request.
import { carrierFor, wellFormed } from '../core/carriers.js';
import { addedHooks, changedHooks, MAX_OWNERS_CHECKED, registeredIdentities } from '../core/ownership.js';
import type { Policy } from '../core/policy.js';
import { RULES } from '../core/registry.js';
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

const unregistered = (policy: Policy, owner: string): boolean =>
  owner !== '' && registeredIdentities(policy, owner) === undefined;

/** An UPDATE removing or re-owning a hook of an owner the policy does not register (RBAC may protect it). */
function removesUnregistered(policy: Policy): (input: ReviewInput) => boolean {
  return (input) => {
    if (input.operation !== 'UPDATE' || input.oldObject === null) return false;
    const carrier = carrierFor(input.kind);
    if (!carrier) return false;
    const changes = changedHooks(carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks);
    return changes.some((c) => unregistered(policy, c.old.owner));
  };
}

/**
 * A hook of the new object with an owner the policy does not register, that the stored object did not have in that
 * stage with that owner: what strictOwners judges (an unchanged hook passes in both).
 */
function addsUnregistered(policy: Policy): (input: ReviewInput) => boolean {
  return (input) => {
    const carrier = carrierFor(input.kind);
    if (!carrier) return false;
    const added = addedHooks(carrier.read(input.object).hooks, carrier.read(input.oldObject).hooks);
    return added.some((h) => unregistered(policy, h.owner));
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
      text: 'the denial suggests the exact kubectl grant only for a registered owner and a lower-case username or service account; otherwise it names the grant (remove on hookowners.hookkeeper.io with the owner as resourceName)',
    });
    if (policy.strictOwners) {
      out.push({
        rule: 'owner-only-removal',
        text: 'under strictOwners, native mode accepts only owners registered in the policy, as CEL cannot list RBAC grants: an owner granted only through RBAC is refused where the webhook accepts it; register it',
        verdictDiffers: addsUnregistered(policy),
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
