// metav1.LabelSelector as a CEL condition on an object's labels (src/core/selector.ts matches the same in
// TypeScript), for matchConditions: the mutating webhook's and the native policies' default-hook conditions.
import type { LabelSelector, ObjectSelector } from '../policy.js';
import { cel, celJoin, celList, celString, type Cel } from './text.js';

const list = (values: readonly string[] | undefined): Cel => celList((values ?? []).map(celString));

/** True when `base`'s labels (base: object or oldObject) satisfy the selector; an empty selector is `true`. */
export function labelSelectorCel(selector: LabelSelector | undefined, base: Cel): Cel {
  const labels = cel`${base}.metadata.labels`;
  const has = (key: string): Cel => cel`(has(${labels}) && ${celString(key)} in ${labels})`;
  const terms: Cel[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {}))
    terms.push(cel`(${has(key)} && ${labels}[${celString(key)}] == ${celString(value)})`);
  for (const req of selector?.matchExpressions ?? []) {
    const isIn = cel`(${has(req.key)} && ${labels}[${celString(req.key)}] in ${list(req.values)})`;
    if (req.operator === 'In') terms.push(isIn);
    else if (req.operator === 'NotIn') terms.push(cel`!${isIn}`);
    else if (req.operator === 'Exists') terms.push(has(req.key));
    else terms.push(cel`!${has(req.key)}`);
  }
  return terms.length === 0 ? cel`true` : celJoin(terms, ' && ');
}

/** True when the request's kind and namespace are the selector's (what a webhook's rules cannot say per rule). */
export function kindAndNamespaceCel(selector: ObjectSelector): Cel {
  const kinds = selector.kinds.map(
    (k) => cel`(request.kind.group == ${celString(k.group)} && request.kind.kind == ${celString(k.kind)})`,
  );
  const inNamespace = namespaceCel(selector);
  return cel`(${celJoin(kinds, ' || ')})${inNamespace === undefined ? cel`` : cel` && ${inNamespace}`}`;
}

/** True when the request's namespace is one the selector names; undefined when it names none (every namespace). */
export function namespaceCel(selector: ObjectSelector): Cel | undefined {
  const namespaces = selector.namespaces ?? [];
  return namespaces.length > 0 ? cel`request.namespace in ${list(namespaces)}` : undefined;
}
