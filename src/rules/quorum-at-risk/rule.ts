// Rule quorum-at-risk (audit): a control-plane Machine deleting without its quorum hook while another Machine of its
// cluster is too, so their etcd members can leave together. The audit passes the cluster's control-plane Machines
// from its own lists as the quorum fact (src/transports/audit/quorum.ts); native mode cannot list them (issue #37).
import { atRisk, quorumAtRiskFix, quorumAtRiskText, quorumStanding } from '../../core/quorum-risk.js';
import type { Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';

export const quorumAtRisk: Rule = ({ policy, input, carrier }) => {
  const fact = input.context?.quorum;
  // Not listed, or the list failed: a cluster not read is not judged.
  if (!fact?.found || !input.object || !carrier.gatesDeletion) return { violations: [] };
  const s = quorumStanding(policy, input.kind, input.object, fact.machines);
  if (!s?.unprotectedDeleting || !atRisk(s)) return { violations: [] };
  const violation: Violation = {
    rule: 'quorum-at-risk',
    path: carrier.stagePath(s.hook.stage),
    message: quorumAtRiskText(s),
    fix: quorumAtRiskFix(carrier.format),
    key: `quorum:${s.hook.name}`,
  };
  return { violations: [violation] };
};

export const quorumAtRiskRule: CarrierRuleModule<'quorum-at-risk'> = {
  id: 'quorum-at-risk',
  order: 185,
  enforcement: 'deny',
  ratchets: false,
  sources: ['audit'],
  selects: 'carriers',
  facts: ['quorum'],
  summary:
    'two or more control-plane Machines of one cluster deleting without their quorum hook (policy quorumHooks): their etcd members can leave together',
  validate: quorumAtRisk,
};
