// Whether an UPDATE changes what a rule reads (each rule's updateReads): the validating webhook's matchCondition
// (src/core/cel/webhook-conditions.ts) as a predicate, for what a request the API server does not send loses.
// Conservative: where the condition could send the request (a rule that does not say what it reads, a kind other
// than a hook carrier), it answers true.
import { HOOK_ANNOTATION_PREFIX } from './capi.js';
import { carrierFor, type HookCarrier } from './carriers.js';
import { deepEqual } from './finalizers.js';
import { dig, isRecord } from './guards.js';
import type { Policy } from './policy.js';
import { VALIDATING } from './registry.js';
import type { ObjectPart } from '../rules/context.js';
import type { KubeObject, ReviewInput } from './types.js';
import type { Env } from './expr/expr.js';

function hookAnnotations(object: KubeObject, carrier: HookCarrier): unknown {
  const annotations = dig(object, carrier.root);
  if (annotations === undefined) return {};
  if (!isRecord(annotations)) return annotations;
  const prefixes = carrier.stages.map((s) => HOOK_ANNOTATION_PREFIX[s]);
  return Object.fromEntries(Object.entries(annotations).filter(([k]) => prefixes.some((p) => k.startsWith(p))));
}

function partOf(object: KubeObject, part: ObjectPart, carrier: HookCarrier): unknown {
  if (part === 'hooks') {
    return carrier.format === 'list' ? dig(object, carrier.root) : hookAnnotations(object, carrier);
  }
  if (typeof part === 'object') {
    const labels = dig(object, ['metadata', 'labels']);
    return isRecord(labels) ? labels[part.label] : undefined;
  }
  return dig(object, ['metadata', part]);
}

export function changesWhatRulesRead(policy: Policy, input: ReviewInput): boolean {
  const { object, oldObject } = input;
  if (input.operation !== 'UPDATE' || !object || !oldObject) return true;
  const carrier = carrierFor(input.kind);
  if (!carrier) return true;
  for (const rule of VALIDATING.admission) {
    if (policy.enforcement[rule.id] === 'off' || rule.selects !== 'carriers') continue;
    const reads = rule.updateReads?.(policy, carrier);
    if (!reads) return true;
    if (reads.storedDenial?.js({ memo: undefined, input } as Env) === true) return true;
    for (const part of reads.parts) {
      if (!deepEqual(partOf(object, part, carrier), partOf(oldObject, part, carrier))) return true;
    }
  }
  return false;
}
