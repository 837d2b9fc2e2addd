// Every way native mode decides or speaks differently from the webhook for this policy, one sentence each, so no
// divergence is silent (render prints them; the README lists them all).
import type { Policy } from '../core/policy.js';
import { RULES } from '../core/registry.js';
import { MAX_OWNERS_CHECKED } from '../core/ownership.js';

export function divergenceNotes(policy: Policy): string[] {
  const notes: string[] = [];
  const on = (id: keyof Policy['enforcement']): boolean => policy.enforcement[id] !== 'off';
  if (policy.children.length > 0) {
    for (const rule of RULES) {
      if (rule.native && 'webhookOnly' in rule.native && on(rule.id))
        notes.push(`${rule.id}: ${rule.native.webhookOnly}`);
    }
  }
  if (on('owner-only-removal')) {
    if (policy.unverifiedRemoval !== 'deny') {
      notes.push(
        `owner-only-removal: CEL cannot list the cluster's RBAC, so an owner protected only by a grant of remove on hookowners.hookkeeper.io (not registered in the policy) is treated as unprotected: a removal RBAC does not allow gets unverifiedRemoval's outcome (${policy.unverifiedRemoval}) where the webhook denies it; register such owners or set unverifiedRemoval: deny`,
      );
    }
    notes.push(
      `owner-only-removal: RBAC is asked about at most ${MAX_OWNERS_CHECKED} owners per request, as by the webhook, each through CEL's authorizer in the request's namespace; a removal allowed by the registry or RBAC leaves no hook-removal audit annotation, and break-glass and unverified removals are audited through the binding's Audit action (validation.policy.admission.k8s.io/validation_failure), not the webhook's keys`,
    );
    notes.push(
      'owner-only-removal: the denial suggests the exact kubectl grant only for a registered owner and a lower-case username or service account; otherwise it names the grant (remove on hookowners.hookkeeper.io with the owner as resourceName)',
    );
    if (policy.strictOwners) {
      notes.push(
        'owner-only-removal: under strictOwners, native mode accepts only owners registered in the policy, as CEL cannot list RBAC grants: an owner granted only through RBAC is refused where the webhook accepts it; register it',
      );
    }
  }
  if (on('single-owner')) {
    notes.push(
      'single-owner: a stage naming one hook twice cannot be indexed by name in CEL and is refused with CEL\'s "key already exists" error, ratcheting aside (the CRDs\' list-map key refuses it first)',
    );
  }
  if (on('hook-naming')) {
    notes.push(
      'hook-naming: a Cluster API key that only starts with a hook prefix gets the "must be <prefix>/<name>" message first, where the webhook lists any qualified-name problem before it',
    );
  }
  notes.push(
    "messages: the API server reports only the first failing validation, so where the webhook joins several violations ('a; b') native mode names the first; warnings come one per validation (one per owner for unverified removals, one per request for break-glass) rather than one per hook; the API server prefixes each with the policy and binding names and, once they pass 4,096 characters in all, cuts each to 256 (the webhook cuts each to 120 itself)",
  );
  if (
    on('default-hooks') &&
    policy.defaultHooks.some((r) => r.operations.includes('UPDATE') && r.match.labelSelector)
  ) {
    notes.push(
      "default-hooks: on UPDATE a MutatingAdmissionPolicy's objectSelector matches the stored object's labels or the new ones; the webhook looks at the new object's only",
    );
  }
  return notes;
}
