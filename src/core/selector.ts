// Kubernetes label selector and object selector matching (metav1.LabelSelector semantics).
import { metadata, stringMap } from './guards.js';
import type { LabelSelector, ObjectSelector } from './policy.js';
import type { GroupVersionKind, KubeObject } from './types.js';

export function matchesLabels(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, req.key);
    const value = labels[req.key];
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In': if (!has || !values.includes(value as string)) return false; break;
      case 'NotIn': if (has && values.includes(value as string)) return false; break;
      case 'Exists': if (!has) return false; break;
      case 'DoesNotExist': if (has) return false; break;
    }
  }
  return true;
}

export function matchesObject(selector: ObjectSelector, gvk: GroupVersionKind, namespace: string | undefined, obj: KubeObject): boolean {
  if (!selector.kinds.some((k) => k.group === gvk.group && k.kind === gvk.kind)) return false;
  const ns = namespace ?? (typeof metadata(obj)['namespace'] === 'string' ? (metadata(obj)['namespace'] as string) : '');
  if (selector.namespaces && selector.namespaces.length > 0 && !selector.namespaces.includes(ns)) return false;
  return matchesLabels(selector.labelSelector, stringMap(metadata(obj)['labels']));
}
