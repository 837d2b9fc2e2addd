// Rule quorum-protection: a quorum hook (policy quorumHooks) is never gone from two control-plane Machines of one
// cluster at once. Removing it from one while another of the same cluster is deleting without it is refused to all
// but the hook's owner, break-glass included, unless the request names that other Machine in
// hookkeeper.io/quorum-acknowledged. The cluster's Machines are a fact serve lists (src/infrastructure/kube/quorum-context.ts);
// CEL sees one object, so native mode cannot decide this.
//
// Not written with src/core/expr: that builder exists to give one predicate to two engines, and this rule has one.
// Its hook test reads the implied owner and the RBAC fact, and its decision a list of other objects, neither of which
// CEL has.
import type { Hook } from '../../core/carriers.js';
import { quote } from '../../core/guards.js';
import { byOwner } from '../../core/ownership.js';
import { acknowledgedMachines, quorumRemoval, unprotectedPeers, type QuorumRemoval } from '../../core/quorum.js';
import type { Policy } from '../../core/policy.js';
import type { Notice, ReviewInput, Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { NATIVE_QUORUM, quorumProtectionDivergences } from './divergences.js';
import { acknowledgedWarning, breachMessage, lookupFailedMessage } from './messages.js';

/** A removal allowed because the request acknowledged the deleting Machines: warned and audited. */
export const AUDIT_KEY_QUORUM_ACK = 'quorum-acknowledged-hook-removal';

function slots(removal: QuorumRemoval, hook: Hook) {
  const { member, quorum } = removal;
  return {
    path: hook.path,
    hook: hook.name,
    quorum: quorum.name,
    machine: member.name,
    namespace: member.namespace,
    cluster: member.cluster,
    unlabelled: member.cluster === '',
  };
}

function violation(hook: Hook, message: string, fix: string): Violation {
  return {
    rule: 'quorum-protection',
    path: hook.path,
    message,
    fix,
    hook: { stage: hook.stage, name: hook.name, owner: hook.owner },
    key: `quorum:${hook.stage}:${quote(hook.name)}`,
  };
}

/** The request acts for every removed quorum hook's owner: the owner removes its hook once its member is gone. */
function ownersOwn(removal: QuorumRemoval, input: ReviewInput, policy: Policy): boolean {
  return removal.removed.length > 0 && removal.removed.every((h) => byOwner(policy, input, h.owner));
}

export const quorumProtection: Rule = ({ policy, input }) => {
  const removal = quorumRemoval(policy, input);
  if (!removal || ownersOwn(removal, input, policy)) return { violations: [] };
  const fact = input.context?.quorum;
  // Not looked up: a transport with no cluster (serve --no-cluster, `hookkeeper test`) cannot judge it. serve with a
  // cluster always looks for such a removal, so a fact is missing only where no list was possible.
  if (fact === undefined) return { violations: [] };
  // quorumRemoval found the stored object carrying a quorum hook the new one lacks: at least one was removed.
  const hook = removal.removed[0];
  if (!hook) return { violations: [] };
  if (!fact.found)
    return {
      violations: [
        violation(
          hook,
          lookupFailedMessage.toJs({ ...slots(removal, hook), reason: `${fact.reason}: ${fact.message}` }),
          'retry the request; if the list keeps failing, check that hookkeeper may list Machines in this namespace',
        ),
      ],
    };
  const peers = unprotectedPeers(policy, removal.quorum, removal.member, input.kind, fact.machines);
  if (peers.length === 0) return { violations: [] };
  const acknowledged = acknowledgedMachines(input.object);
  const others = peers.join(', ');
  const words = { ...slots(removal, hook), others, plural: peers.length > 1 };
  if (peers.every((p) => acknowledged.has(p))) {
    const notice: Notice = {
      rule: 'quorum-protection',
      warning: acknowledgedWarning.toJs(words),
      audit: {
        key: AUDIT_KEY_QUORUM_ACK,
        value: JSON.stringify({
          quorum: removal.quorum.name,
          cluster: removal.member.cluster,
          hook: hook.name,
          user: input.userInfo.username,
          acknowledged: peers,
        }),
      },
    };
    return { violations: [], notices: [notice] };
  }
  return {
    violations: [
      violation(
        hook,
        breachMessage.toJs({ ...words, acknowledge: peers.join(',') }),
        `wait until ${others} is gone or carries ${quote(hook.name)} again; to remove it anyway, name ${others} in annotation hookkeeper.io/quorum-acknowledged`,
      ),
    ],
  };
};

export const quorumProtectionRule: CarrierRuleModule<'quorum-protection'> = {
  id: 'quorum-protection',
  order: 45,
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission'],
  selects: 'carriers',
  // It judges an UPDATE that removes a quorum hook, a change of the hooks; who asks and the annotation matter only
  // for such a change.
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: [] }),
  facts: ['quorum', 'ownership'],
  summary:
    'a quorum hook (policy quorumHooks) is removed from a control-plane Machine, by anyone but its owner (break-glass included), only while no other control-plane Machine of its cluster is deleting without one, or with that Machine named in hookkeeper.io/quorum-acknowledged',
  validate: quorumProtection,
  native: {
    webhookOnly: NATIVE_QUORUM,
    divergences: quorumProtectionDivergences,
  },
};
