// metav1.LabelSelector as a CEL condition on an object's labels (src/core/selector.ts matches the same in
// TypeScript), for matchConditions: the mutating webhook's and the native policies' default-hook conditions.
import type { LabelSelector, ObjectSelector } from '../policy.js';
import { str } from './text.js';

const list = (values: readonly string[] | undefined): string => `[${(values ?? []).map(str).join(', ')}]`;

/** True when `base`'s labels (base: object or oldObject) satisfy the selector; an empty selector is `true`. */
export function labelSelectorCel(selector: LabelSelector | undefined, base: string): string {
  const labels = `${base}.metadata.labels`;
  const has = (key: string): string => `(has(${labels}) && ${str(key)} in ${labels})`;
  const terms: string[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {}))
    terms.push(`(${has(key)} && ${labels}[${str(key)}] == ${str(value)})`);
  for (const req of selector?.matchExpressions ?? []) {
    const isIn = `(${has(req.key)} && ${labels}[${str(req.key)}] in ${list(req.values)})`;
    if (req.operator === 'In') terms.push(isIn);
    else if (req.operator === 'NotIn') terms.push(`!${isIn}`);
    else if (req.operator === 'Exists') terms.push(has(req.key));
    else terms.push(`!${has(req.key)}`);
  }
  return terms.length === 0 ? 'true' : terms.join(' && ');
}

/** True when the request's kind and namespace are the selector's (what a webhook's rules cannot say per rule). */
export function kindAndNamespaceCel(selector: ObjectSelector): string {
  const kinds = selector.kinds.map(
    (k) => `(request.kind.group == ${str(k.group)} && request.kind.kind == ${str(k.kind)})`,
  );
  const namespaces = selector.namespaces ?? [];
  const inNamespace = namespaces.length > 0 ? ` && request.namespace in ${list(namespaces)}` : '';
  return `(${kinds.join(' || ')})${inNamespace}`;
}
