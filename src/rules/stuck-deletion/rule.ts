// Rule stuck-deletion (audit): a Machine that has waited at a hook stage for longer than the audit's threshold. The
// audit passes its clock as a fact; the wait is measured from where the Machine records its start.
import { MACHINE_STAGES, wellFormed, type Hook, type HookCarrier } from '../../core/carriers.js';
import { deletionStanding } from '../../core/explain/standing.js';
import { formatDuration } from '../../core/duration.js';
import { metadata, quote } from '../../core/guards.js';
import type { KubeObject, Stage, Violation } from '../../core/types.js';
import type { CarrierRuleModule, Rule } from '../context.js';

import { IMPLIED_OWNER_NOTE, withImpliedOwner } from '../../core/implied-owner.js';
import { breakGlassText } from '../../core/messages/ownership.js';
import { FINALIZERS_HELD_FIX, heldFinalizersNote } from '../../core/machine-controllers.js';

/**
 * The stage a deletion held by hooks at `stages` waits at: pre-drain hooks hold the drain, pre-terminate hooks only
 * what follows it, so the first stage (in MACHINE_STAGES order) that still has a hook.
 */
export function blockingStage(stages: Iterable<Stage>): Stage | undefined {
  const present = new Set(stages);
  return MACHINE_STAGES.find((s) => present.has(s));
}

/** When the wait at the hooks' stage began, by the Machine's own record where it keeps one. */
interface HookWait {
  stage: Stage;
  since: string;
  /** The field or condition that says so, or the deletionTimestamp when nothing records the wait's start. */
  from: string;
  forMs: number;
}

const DELETION_TIMESTAMP = 'metadata.deletionTimestamp';

/**
 * The wait a deleting Machine's hooks hold now, measured from where the Machine records its start (Cluster API's
 * status.deletion times, the Machine API's Drained condition; src/core/explain/standing.ts), else from the
 * deletionTimestamp. None when its controller records a step past the hooks (draining, infrastructure).
 */
export function hookWait(
  object: KubeObject,
  format: HookCarrier['format'],
  hooks: readonly Hook[],
  nowMs: number,
): HookWait | undefined {
  const standing = deletionStanding(object, format, hooks, nowMs);
  const at = standing.waitingAt;
  if (!at || (at.step !== 'preDrain' && at.step !== 'preTerminate') || standing.since === undefined) return undefined;
  const derived = at.since === undefined || at.since === standing.since;
  const since = at.since ?? standing.since;
  const started = Date.parse(since);
  if (Number.isNaN(started)) return undefined;
  const from = derived ? DELETION_TIMESTAMP : (at.sinceEvidence?.detail ?? DELETION_TIMESTAMP);
  return { stage: at.step, since, from, forMs: Math.max(0, nowMs - started) };
}

/** One violation per hook of the stage a deleting Machine has waited at for longer than the threshold. */
export const stuckDeletion: Rule = ({ policy, input, carrier, hooks: reading }) => {
  const deletionTimestamp = metadata(input.object)['deletionTimestamp'];
  const deletion = input.context?.deletion;
  const hooks = wellFormed(reading.hooks);
  if (
    !carrier.gatesDeletion ||
    typeof deletionTimestamp !== 'string' ||
    hooks.length === 0 ||
    !deletion ||
    !input.object
  )
    return { violations: [] };
  const wait = hookWait(input.object, carrier.format, hooks, deletion.nowMs);
  if (!wait || wait.forMs <= deletion.stuckAfterMs) return { violations: [] };
  const deletingForMs = Math.max(0, deletion.nowMs - Date.parse(deletionTimestamp));
  const label = `${input.kind.kind} ${input.namespace ? `${input.namespace}/` : ''}${input.name ?? ''}`;
  const how =
    wait.from === DELETION_TIMESTAMP
      ? `has been deleting for ${formatDuration(wait.forMs)} (since ${wait.since})`
      : `has waited at ${wait.stage} for ${formatDuration(wait.forMs)} (since ${wait.since}, ${wait.from}; deleting for ${formatDuration(deletingForMs)})`;
  // Removing the finalizers is no way round the hook (controller-finalizer): said where someone looks for one.
  const held = heldFinalizersNote(policy, carrier) === undefined ? '' : `; ${FINALIZERS_HELD_FIX}`;
  // An empty value stands for the owner the policy implies for its key: that controller is the one waited for.
  const violations: Violation[] = hooks
    .filter((written) => written.stage === wait.stage)
    .map((written) => [written, withImpliedOwner(policy, carrier, written)] as const)
    .map(([written, h]) => ({
      rule: 'stuck-deletion',
      path: h.path,
      message: `${label} ${how}: ${h.stage} hook ${quote(h.name)} owned by ${quote(h.owner)}${h === written ? '' : IMPLIED_OWNER_NOTE} is still there`,
      fix: `the deletion waits for ${quote(h.owner)} to remove hook ${quote(h.name)}: check that controller; if it is gone for good, remove the hook as a break-glass identity (${breakGlassText(policy)})${held}`,
      hook: { stage: h.stage, name: h.name, owner: h.owner },
      deletion: {
        deletionTimestamp,
        deletingForSeconds: Math.floor(deletingForMs / 1000),
        waitingSince: wait.since,
        waitingForSeconds: Math.floor(wait.forMs / 1000),
        waitingSinceFrom: wait.from,
      },
      key: `stuck:${h.stage}:${quote(h.name)}`,
    }));
  return { violations };
};

export const stuckDeletionRule: CarrierRuleModule<'stuck-deletion'> = {
  id: 'stuck-deletion',
  order: 170,
  enforcement: 'deny',
  ratchets: false,
  sources: ['audit'],
  selects: 'carriers',
  facts: ['deletion'],
  summary:
    "a Machine that has waited on its hooks for longer than the audit's --stuck-after (from when the Machine records the wait began, else its deletionTimestamp)",
  validate: stuckDeletion,
};
