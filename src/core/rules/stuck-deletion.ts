// Rule stuck-deletion (audit): a Machine deleting for longer than the audit's threshold while hooks still hold
// it. The audit reads the clock and passes how long the object has been deleting as a fact.
import { STAGES, wellFormed } from '../carriers.js';
import { formatDuration } from '../duration.js';
import { metadata, quote } from '../guards.js';
import type { Stage, Violation } from '../types.js';
import type { CarrierRuleModule, Rule } from './context.js';

import { breakGlassText } from '../messages/ownership.js';
import { FINALIZERS_HELD_FIX, heldFinalizersNote } from '../machine-controllers.js';

/**
 * The stage a deletion held by hooks at `stages` waits at: pre-drain hooks hold the drain, pre-terminate hooks only
 * what follows it, so the first stage (in STAGES order) that still has a hook.
 */
export function blockingStage(stages: Iterable<Stage>): Stage | undefined {
  const present = new Set(stages);
  return STAGES.find((s) => present.has(s));
}

/** One violation per hook still present on a live carrier deleting for longer than the threshold. */
export const stuckDeletion: Rule = ({ policy, input, carrier, hooks: reading }) => {
  const since = metadata(input.object)['deletionTimestamp'];
  const deletion = input.context?.deletion;
  const hooks = wellFormed(reading.hooks);
  if (!carrier.live || typeof since !== 'string' || hooks.length === 0) return { violations: [] };
  if (!deletion || deletion.forMs <= deletion.stuckAfterMs) return { violations: [] };
  const age = deletion.forMs;
  const label = `${input.kind.kind} ${input.namespace ? `${input.namespace}/` : ''}${input.name ?? ''}`;
  // Removing the finalizers is no way round the hook (controller-finalizer): said where someone looks for one.
  const held = heldFinalizersNote(policy, carrier) === undefined ? '' : `; ${FINALIZERS_HELD_FIX}`;
  const violations: Violation[] = hooks.map((h) => ({
    rule: 'stuck-deletion',
    path: h.path,
    message: `${label} has been deleting for ${formatDuration(age)} (since ${since}): ${h.stage} hook ${quote(h.name)} owned by ${quote(h.owner)} is still there`,
    fix: `the deletion waits for ${quote(h.owner)} to remove hook ${quote(h.name)}: check that controller; if it is gone for good, remove the hook as a break-glass identity (${breakGlassText(policy)})${held}`,
    hook: { stage: h.stage, name: h.name, owner: h.owner },
    deletion: { deletionTimestamp: since, deletingForSeconds: Math.floor(age / 1000) },
    key: `stuck:${h.stage}:${quote(h.name)}`,
  }));
  return { violations };
};

export const stuckDeletionRule: CarrierRuleModule<'stuck-deletion'> = {
  id: 'stuck-deletion',
  enforcement: 'deny',
  ratchets: false,
  sources: ['audit'],
  selects: 'carriers',
  facts: ['deletion'],
  summary: "a Machine deleting for longer than the audit's --stuck-after while hooks still hold it",
  validate: stuckDeletion,
};
