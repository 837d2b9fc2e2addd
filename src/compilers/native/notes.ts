// Every way native mode decides or speaks differently from the webhook for this policy, as values: the rule, render's
// sentence, and for a difference of verdict the requests it concerns (a predicate over the review), so no divergence
// is silent (render prints the sentences; the README lists them) and the e2e corpus excuses a difference only where
// a divergence covers that very request.
import { carrierFor } from '../../core/carriers.js';
import { namesAHookTwice, type Divergence } from '../../core/divergence.js';
import type { Policy } from '../../core/policy.js';
import { RULES } from '../../core/registry.js';
import { changesWhatRulesRead } from '../../core/update-reads.js';
import type { ReviewInput, RuleId } from '../../core/types.js';

export type { Divergence };

/** The sentence render prints for a divergence. */
export function noteText(d: Divergence): string {
  return `${d.rule}: ${d.text}`;
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
      if (rule.native && 'webhookOnly' in rule.native && !rule.native.divergences && on(rule.id))
        // Native mode never runs it: every request it decides may be decided otherwise.
        out.push({ rule: rule.id, text: rule.native.webhookOnly, verdictDiffers: () => true });
    }
  }
  // Each rule's own, as it declares them.
  for (const rule of RULES)
    if (on(rule.id) && rule.native && !('mutating' in rule.native) && rule.native.divergences)
      out.push(...rule.native.divergences(policy));
  for (const rule of readsNameIndex(policy)) {
    // A rule that words this divergence itself.
    if (out.some((d) => d.rule === rule && d.verdictDiffers === namesAHookTwice)) continue;
    out.push({
      rule,
      text: 'a Machine API stage naming one hook twice, in the object or the stored object, cannot be indexed by name in CEL, so this check fails with CEL\'s "key already exists" error (refusing the request under deny, a warning under warn) where the webhook judges the hooks (the Machine API CRDs\' list-map key refuses such objects first)',
      verdictDiffers: namesAHookTwice,
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
