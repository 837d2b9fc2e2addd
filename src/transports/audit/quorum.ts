// The quorum fact from the audit's own lists: every control-plane Machine a quorum hook selects is kept (a few per
// cluster), and a deleting one without the hook is judged once its resource is listed, with its cluster's
// Machines (src/rules/quorum-at-risk). The clusters with such deletions go into the report for the metrics.
import type { Policy } from '../../core/policy.js';
import {
  memberOf,
  quorumHookOf,
  sameCluster,
  unprotectedClusters,
  type QuorumCluster,
  type QuorumMember,
} from '../../core/quorum.js';
import type { GroupVersionKind, KubeObject, QuorumFact } from '../../core/types.js';

interface Seen {
  quorum: string;
  member: QuorumMember;
  object: KubeObject;
}

export interface QuorumRecorder {
  /** Records a listed object; true when it must be judged after the listing (deleting without its quorum hook). */
  see(kind: GroupVersionKind, object: KubeObject): boolean;
  /** A held Machine's fact: the Machines of its cluster under the same quorum hook, as listed. */
  fact(kind: GroupVersionKind, object: KubeObject): QuorumFact;
  /** Every cluster with a control-plane Machine deleting without its quorum hook, in a stable order. */
  clusters(): QuorumCluster[];
}

export function quorumRecorder(policy: Policy): QuorumRecorder {
  const seen: Seen[] = [];
  return {
    see(kind, object) {
      const q = quorumHookOf(policy, kind, object);
      if (!q) return false;
      const member = memberOf(q, kind, object);
      seen.push({ quorum: q.name, member, object });
      return member.deleting && !member.protected;
    },
    fact(kind, object) {
      const q = quorumHookOf(policy, kind, object);
      if (!q) return { found: true, machines: [] };
      const me = memberOf(q, kind, object);
      const machines = seen.filter((s) => s.quorum === q.name && sameCluster(s.member, me)).map((s) => s.object);
      return { found: true, machines };
    },
    clusters() {
      return unprotectedClusters(seen);
    },
  };
}
