// A control-plane Machine's quorum standing for `explain`: whether two or more Machines of its cluster are deleting
// without the quorum hook, in the audit's words (src/core/quorum-risk.ts), from the Machines the transport read.
import type { HookCarrier } from '../carriers.js';
import type { Policy } from '../policy.js';
import { atRisk, clusterText, quorumAtRiskFix, quorumAtRiskText, quorumStanding } from '../quorum-risk.js';
import type { KubeObject } from '../types.js';
import type { ExplainFacts, QuorumExplanation } from './model.js';

export function explainQuorum(
  policy: Policy,
  carrier: HookCarrier,
  object: KubeObject,
  facts: ExplainFacts,
): QuorumExplanation | undefined {
  const fact = facts.quorum;
  const gvk = { group: carrier.group, version: '', kind: carrier.kind };
  const s = quorumStanding(policy, gvk, object, fact?.status === 'known' ? fact.machines : []);
  if (!s) return undefined;
  const base = {
    name: s.hook.name,
    hooks: [...s.hook.hooks],
    stage: s.hook.stage,
    namespace: s.namespace,
    cluster: s.cluster,
    protected: s.protected,
    unprotectedDeleting: s.machines,
  };
  if (fact?.status !== 'known')
    return { ...base, state: 'unknown', detail: fact?.reason ?? "the cluster's control-plane Machines were not read" };
  const from = facts.source === 'file' ? ' (from the Machines in the files)' : '';
  if (atRisk(s))
    return { ...base, state: 'at-risk', detail: `${quorumAtRiskText(s)}${from}`, fix: quorumAtRiskFix(carrier.format) };
  const hooks = s.hook.hooks.join(' or ');
  const detail =
    s.machines.length === 0
      ? `no control-plane Machine of ${clusterText(s)} is deleting without ${hooks}`
      : `1 control-plane Machine of ${clusterText(s)} is deleting without ${hooks} (${s.machines[0] ?? ''}): a second would put quorum at risk`;
  return { ...base, state: 'clear', detail: `${detail}${from}` };
}

/** The summary's words for a quorum at risk. */
export function quorumSummary(q: QuorumExplanation): string {
  return `QUORUM AT RISK: ${q.unprotectedDeleting.length} control-plane Machines of ${clusterText(q)} deleting without ${q.hooks.join(' or ')}`;
}
