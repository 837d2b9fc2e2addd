// Where native mode decides quorum-protection otherwise than the webhook: it never runs it, since deciding needs the
// cluster's other control-plane Machines and CEL sees one object.
import type { Divergence } from '../../core/divergence.js';
import type { Policy } from '../../core/policy.js';
import { quorumRemoval } from '../../core/quorum.js';

/** What native mode does instead: also the rule's webhookOnly sentence. */
export const NATIVE_QUORUM =
  "CEL sees one object, not the cluster's other Machines: native mode never refuses a quorum hook's removal because another control-plane Machine of the cluster is deleting without it (the webhook refuses it to all but the hook's owner, break-glass included, unless the request names that Machine in hookkeeper.io/quorum-acknowledged), nor warns of an acknowledged one; run the webhook, or both, to keep quorum protection";

export function quorumProtectionDivergences(policy: Policy): Divergence[] {
  if (policy.quorumHooks.length === 0) return [];
  return [
    {
      rule: 'quorum-protection',
      text: NATIVE_QUORUM,
      // Every quorum hook's removal the webhook may refuse: the list decides, which native mode never sees.
      verdictDiffers: (input) => quorumRemoval(policy, input) !== undefined,
    },
  ];
}
