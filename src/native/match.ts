// What native policies match, mirroring the webhook registration (webhook-config/base): the carriers' resources,
// every namespace but kube-system and hookkeeper's own, and not a deleting object's last finalizer removal.
import type { HookCarrier } from '../core/carriers.js';
import type { LabelSelector } from '../core/policy.js';
import { KNOWN_RESOURCES } from '../kube/resources.js';

export const LABELS = Object.freeze({ 'app.kubernetes.io/name': 'hookkeeper' });

/** The namespaces the webhook never guards, so the way back from a broken policy stays open. */
export const EXCLUDED_NAMESPACES = Object.freeze(['kube-system', 'hookkeeper']);

/** The webhook's matchCondition: a deleting object losing its last finalizer is leaving; hooks protect nothing. */
export const NOT_FINISHING_DELETION = Object.freeze({
  name: 'not-finishing-deletion',
  expression:
    '!(has(object.metadata.deletionTimestamp) && (!has(object.metadata.finalizers) || size(object.metadata.finalizers) == 0))',
});

/** The plural resource of a carrier's kind (src/kube/resources.ts: a pure table), if hookkeeper knows it. */
export function pluralOf(carrier: HookCarrier): string | undefined {
  return KNOWN_RESOURCES.find((r) => r.group === carrier.group && r.kind === carrier.kind)?.plural;
}

export function resourceRule(carrier: HookCarrier, plural: string, operations: readonly string[]): object {
  // Every served version: a carrier's hooks do not move between versions (Equivalent matching would convert).
  return { apiGroups: [carrier.group], apiVersions: ['*'], resources: [plural], operations: [...operations] };
}

export function namespaceSelector(only?: readonly string[]): LabelSelector {
  return {
    matchExpressions: [
      { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [...EXCLUDED_NAMESPACES] },
      ...(only && only.length > 0
        ? [{ key: 'kubernetes.io/metadata.name', operator: 'In' as const, values: [...only] }]
        : []),
    ],
  };
}
