// Kubernetes label selector and object selector matching (metav1.LabelSelector semantics).
import { isRecord, metadata } from './guards.js';
import type { LabelSelector, ObjectSelector } from './policy.js';
import type { GroupVersionKind, KubeObject } from './types.js';

function labelOf(labels: unknown, key: string): string | undefined {
  if (!isRecord(labels) || !Object.hasOwn(labels, key)) return undefined;
  const value = labels[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether `labels` (an object's metadata.labels, as sent: anything) satisfy the selector. Only string values
 * count as labels; the map is read in place, never copied, since every review of a selected kind runs this.
 */
export function matchesLabels(selector: LabelSelector | undefined, labels: unknown): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labelOf(labels, k) !== v) return false;
  for (const req of selector.matchExpressions ?? []) {
    const value = labelOf(labels, req.key);
    const has = value !== undefined;
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(value)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

export function matchesObject(
  selector: ObjectSelector,
  gvk: GroupVersionKind,
  namespace: string | undefined,
  obj: KubeObject,
): boolean {
  if (!selector.kinds.some((k) => k.group === gvk.group && k.kind === gvk.kind)) return false;
  const ns =
    namespace ?? (typeof metadata(obj)['namespace'] === 'string' ? (metadata(obj)['namespace'] as string) : '');
  if (selector.namespaces && selector.namespaces.length > 0 && !selector.namespaces.includes(ns)) return false;
  return matchesLabels(selector.labelSelector, metadata(obj)['labels']);
}
