// Rule deletion-freeze: once a Machine is marked for deletion its hooks may only be removed, never added or
// changed. Mirrors machine-api-operator's Machine webhook check and message, stanza by stanza.
import { wellFormed, type Hook } from '../../carriers.js';
import { isDeleting } from '../../guards.js';
import { deletionFreezeMessage, goHookMessage, STAGE_WORDS } from './messages.js';
import type { Violation } from '../../types.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { nativeDeletionFreeze } from './cel.js';

/** Go's %+v of each hook of a []LifecycleHook, space-separated, as machine-api-operator prints them. */
function formatHooksGo(hooks: readonly Hook[]): string {
  return hooks.map((h) => goHookMessage.toJs(h)).join(' ');
}

export const deletionFreeze: Rule = ({ input, carrier, hooks, oldHooks }) => {
  if (input.operation !== 'UPDATE' || !carrier.gatesDeletion || !isDeleting(input.object)) return { violations: [] };
  const before = wellFormed(oldHooks.hooks);
  const after = wellFormed(hooks.hooks);
  const violations: Violation[] = [];
  for (const stage of ['preDrain', 'preTerminate'] as const) {
    // By identity: on Cluster API two keys whose names parse alike are two hooks, so swapping their owners changes both.
    const old = new Set(before.filter((h) => h.stage === stage).map((h) => `${h.id}\u0000${h.owner}`));
    const changed = after.filter((h) => h.stage === stage && !old.has(`${h.id}\u0000${h.owner}`));
    if (changed.length === 0) continue;
    const path = carrier.stagePath(stage);
    violations.push({
      rule: 'deletion-freeze',
      path,
      message: deletionFreezeMessage.toJs({ path, stageWords: STAGE_WORDS[stage], hooks: formatHooksGo(changed) }),
      fix: 'the machine is deleting: hooks can only be removed now; add hooks before deleting the machine',
      key: `freeze:${stage}:${changed.map((h) => `${h.id}/${h.owner}`).join(',')}`,
    });
  }
  return { violations };
};

export const deletionFreezeRule: CarrierRuleModule<'deletion-freeze'> = {
  id: 'deletion-freeze',
  order: 60,
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['hooks', 'deletionTimestamp'] }),
  createReads: () => ({ parts: [] }),
  facts: [],
  summary: 'a deleting Machine may lose hooks but not gain or change them',
  validate: deletionFreeze,
  native: { validating: nativeDeletionFreeze, readsNameIndex: true },
};
