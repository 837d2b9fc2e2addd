// Where a Machine's deletion stands: what the controllers wrote (Cluster API's status.deletion start times and its
// v1beta2 Deleting condition; the Machine API's Drainable/Terminable conditions), else derived from the hooks present.
import type { Hook } from '../carriers.js';
import { dig, isRecord, metadata } from '../guards.js';
import type { KubeObject, MachineStage } from '../types.js';
import type { ConditionFact, DeletionStanding, DeletionStep, Evidence } from './model.js';

/** Cluster API's MachineDeletingCondition reasons (v1beta2 conditions), and the step each names. */
export const CAPI_DELETING_REASONS: Readonly<Record<string, DeletionStep>> = Object.freeze({
  WaitingForPreDrainHook: 'preDrain',
  DrainingNode: 'drain',
  WaitingForVolumeDetach: 'volumeDetach',
  WaitingForPreTerminateHook: 'preTerminate',
  WaitingForInfrastructureDeletion: 'infrastructure',
});

/** status.deletion's start times (Cluster API; the hook ones since v1.14), in the order the steps run. */
export const CAPI_START_TIMES: ReadonlyArray<{ field: string; step: DeletionStep }> = [
  { field: 'waitForPreDrainHookStartTime', step: 'preDrain' },
  { field: 'nodeDrainStartTime', step: 'drain' },
  { field: 'waitForNodeVolumeDetachStartTime', step: 'volumeDetach' },
  { field: 'waitForPreTerminateHookStartTime', step: 'preTerminate' },
];

/** The Machine API controller's conditions: False with reason HookPresent while a stage has hooks. */
export const MAPI_HOOK_CONDITIONS: Readonly<Record<MachineStage, string>> = Object.freeze({
  preDrain: 'Drainable',
  preTerminate: 'Terminable',
});
export const MAPI_HOOK_PRESENT = 'HookPresent';
/**
 * The Machine API drain controller's condition, True once the Node is drained or the drain skipped (no Node): the
 * machine controller then waits only on pre-terminate hooks (machine-api-operator pkg/controller/machine/
 * drain_controller.go and controller.go). Its lastTransitionTime is when that wait began.
 */
export const MAPI_DRAINED = 'Drained';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function conditionsAt(obj: KubeObject, keys: readonly string[]): Array<ConditionFact & { path: string }> {
  const list = dig(obj, keys);
  if (!Array.isArray(list)) return [];
  return list.flatMap((c: unknown) => {
    if (!isRecord(c) || typeof c['type'] !== 'string' || typeof c['status'] !== 'string') return [];
    const reason = str(c['reason']);
    const message = str(c['message']);
    const lastTransitionTime = str(c['lastTransitionTime']);
    return [
      {
        type: c['type'],
        status: c['status'],
        ...(reason ? { reason } : {}),
        ...(message ? { message } : {}),
        ...(lastTransitionTime ? { lastTransitionTime } : {}),
        path: `${keys.join('.')}[type=${c['type']}]`,
      },
    ];
  });
}

/**
 * Cluster API's v1beta2 Deleting condition: status.conditions of a v1beta2 Machine, status.v1beta2.conditions of a
 * v1beta1 one (where status.conditions holds the older v1beta1 conditions).
 */
function capiConditions(obj: KubeObject): Array<ConditionFact & { path: string }> {
  const v1beta2 = str(obj['apiVersion'])?.endsWith('/v1beta1')
    ? conditionsAt(obj, ['status', 'v1beta2', 'conditions'])
    : conditionsAt(obj, ['status', 'conditions']);
  return v1beta2.filter((c) => c.type === 'Deleting');
}

function mapiConditions(obj: KubeObject): Array<ConditionFact & { path: string }> {
  const wanted = new Set([...Object.values(MAPI_HOOK_CONDITIONS), MAPI_DRAINED]);
  return conditionsAt(obj, ['status', 'conditions']).filter((c) => wanted.has(c.type));
}

function startTimes(obj: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { field } of CAPI_START_TIMES) {
    const at = str(dig(obj, ['status', 'deletion', field]));
    if (at) out[field] = at;
  }
  return out;
}

function seconds(nowMs: number | undefined, since: string | undefined): number | undefined {
  if (nowMs === undefined || since === undefined) return undefined;
  const t = Date.parse(since);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.floor((nowMs - t) / 1000));
}

interface Waiting {
  step: DeletionStep;
  evidence: Evidence;
  since?: string;
  sinceEvidence?: Evidence;
}

/** Without a start time written, waiting on preDrain hooks began with the deletion: they are the first step. */
const PRE_DRAIN_SINCE: Evidence = {
  basis: 'derived',
  detail: 'metadata.deletionTimestamp: preDrain hooks are waited on first',
};

/** The step the hooks present imply: preDrain hooks hold first; preTerminate's only once drained. */
function derivedStep(hooks: readonly Hook[], deletionTimestamp: string): Waiting {
  if (hooks.some((h) => h.stage === 'preDrain'))
    return {
      step: 'preDrain',
      evidence: { basis: 'derived', detail: 'preDrain hooks are present, and they hold the deletion before the drain' },
      since: deletionTimestamp,
      sinceEvidence: PRE_DRAIN_SINCE,
    };
  if (hooks.some((h) => h.stage === 'preTerminate'))
    return {
      step: 'preTerminate',
      evidence: {
        basis: 'derived',
        detail: 'only preTerminate hooks are present: the deletion waits on them once the Node is drained',
      },
    };
  return {
    step: 'other',
    evidence: {
      basis: 'derived',
      detail: 'no hooks are present: the deletion waits on something else (drain, infrastructure)',
    },
  };
}

/** Machine API after the drain: pre-terminate hooks hold what follows, since Drained turned True. */
function drainedStep(hooks: readonly Hook[], drained: ConditionFact & { path: string }): Waiting {
  const evidence: Evidence = { basis: 'condition', detail: `${drained.path} is True: the drain is over` };
  if (!hooks.some((h) => h.stage === 'preTerminate')) return { step: 'infrastructure', evidence };
  return {
    step: 'preTerminate',
    evidence,
    ...(drained.lastTransitionTime
      ? {
          since: drained.lastTransitionTime,
          sinceEvidence: { basis: 'condition', detail: `${drained.path}.lastTransitionTime` },
        }
      : {}),
  };
}

/** Cluster API: the Deleting condition's reason, else the latest start time written, else derived. */
function capiStep(
  obj: KubeObject,
  hooks: readonly Hook[],
  deletionTimestamp: string,
  times: Record<string, string>,
): Waiting {
  const field = (step: DeletionStep): { since?: string; sinceEvidence?: Evidence } => {
    const entry = CAPI_START_TIMES.find((t) => t.step === step);
    const at = entry ? times[entry.field] : undefined;
    return entry && at
      ? { since: at, sinceEvidence: { basis: 'field', detail: `status.deletion.${entry.field}` } }
      : {};
  };
  const deleting = capiConditions(obj).find((c) => c.status === 'True' && c.reason !== undefined);
  const named = deleting?.reason !== undefined ? CAPI_DELETING_REASONS[deleting.reason] : undefined;
  if (deleting && named) {
    const evidence: Evidence = {
      basis: 'condition',
      detail: `${deleting.path} reason ${deleting.reason}${deleting.message ? `: ${deleting.message}` : ''}`,
    };
    const fromField = field(named);
    if (fromField.since) return { step: named, evidence, ...fromField };
    if (named === 'preDrain')
      return { step: named, evidence, since: deletionTimestamp, sinceEvidence: PRE_DRAIN_SINCE };
    return { step: named, evidence };
  }
  const latest = [...CAPI_START_TIMES].reverse().find((t) => times[t.field] !== undefined);
  if (latest)
    return {
      step: latest.step,
      evidence: { basis: 'field', detail: `status.deletion.${latest.field} is the latest step started` },
      ...field(latest.step),
    };
  return derivedStep(hooks, deletionTimestamp);
}

/** Machine API: Drained True puts the pre-drain step behind it; a stage's condition False with HookPresent says its hooks are there. */
function mapiStep(obj: KubeObject, hooks: readonly Hook[], deletionTimestamp: string): Waiting {
  const conditions = mapiConditions(obj);
  const drained = conditions.find((x) => x.type === MAPI_DRAINED && x.status === 'True');
  const derived = drained ? drainedStep(hooks, drained) : derivedStep(hooks, deletionTimestamp);
  if (derived.step !== 'preDrain' && derived.step !== 'preTerminate') return derived;
  const type = MAPI_HOOK_CONDITIONS[derived.step];
  const c = conditions.find((x) => x.type === type && x.status === 'False' && x.reason === MAPI_HOOK_PRESENT);
  if (!c) return derived;
  return {
    ...derived,
    evidence: {
      basis: 'condition',
      detail: `${c.path} reason ${MAPI_HOOK_PRESENT}${c.message ? `: ${c.message}` : ''}`,
    },
  };
}

/** Where the deletion stands, for a carrier of the given format ('annotations': Cluster API; 'list': Machine API). */
export function deletionStanding(
  obj: KubeObject,
  format: 'list' | 'annotations',
  hooks: readonly Hook[],
  nowMs: number | undefined,
): DeletionStanding {
  const since = str(metadata(obj)['deletionTimestamp']);
  const times = format === 'annotations' ? startTimes(obj) : {};
  const conditions = format === 'annotations' ? capiConditions(obj) : mapiConditions(obj);
  const notes: string[] = [];
  if (!since) return { deleting: false, conditions, startTimes: times, notes };
  const waiting = format === 'annotations' ? capiStep(obj, hooks, since, times) : mapiStep(obj, hooks, since);
  if (format === 'annotations' && times['waitForPreDrainHookStartTime'] === undefined && waiting.step === 'preDrain')
    notes.push(
      'status.deletion.waitForPreDrainHookStartTime is not set: Cluster API writes it from v1.14 (its v1.10 schema has no such field)',
    );
  const forSeconds = seconds(nowMs, waiting.since);
  return {
    deleting: true,
    since,
    ...(seconds(nowMs, since) !== undefined ? { forSeconds: seconds(nowMs, since) } : {}),
    waitingAt: { ...waiting, ...(forSeconds !== undefined ? { forSeconds } : {}) },
    conditions,
    startTimes: times,
    notes,
  };
}
