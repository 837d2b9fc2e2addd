// Label and namespace selection as expressions (metav1.LabelSelector semantics): the policy's selectors, judged in
// both engines from one leaf each, where src/core/selector.ts (TypeScript) and src/core/cel/selector.ts (CEL) meet.
import { labelSelectorCel } from '../cel/selector.js';
import { cel, celList, celString } from '../cel/text.js';
import { metadata } from '../guards.js';
import type { KindRef, LabelSelector } from '../policy.js';
import { matchesLabels } from '../selector.js';
import type { ReviewInput } from '../types.js';
import { FALSE, leaf, or, TRUE, type Bool } from './expr.js';
import type { RequestEnv } from './request.js';

const inputOf = (env: unknown): ReviewInput => (env as RequestEnv).input;

/**
 * The labels of the object (or the stored object) satisfy the selector. Both read only string label values: the
 * API server stores no other, and CEL's == and `in` are false for them.
 */
export function labelsMatch(selector: LabelSelector | undefined, base: 'object' | 'oldObject'): Bool {
  return leaf(cel`(${labelSelectorCel(selector, base === 'object' ? cel`object` : cel`oldObject`)})`, (env) => {
    const obj = inputOf(env)[base];
    return obj !== null && matchesLabels(selector, metadata(obj)['labels']);
  });
}

/**
 * The request's namespace is one of these (none: any). Offline, where a manifest may name its namespace only in
 * its metadata, the object's is read, as src/core/selector.ts matchesObject does.
 */
export function namespaceIn(namespaces: readonly string[] | undefined): Bool {
  if (!namespaces || namespaces.length === 0) return TRUE;
  return leaf(cel`request.namespace in ${celList(namespaces.map(celString))}`, (env) => {
    const input = inputOf(env);
    const own = metadata(input.object)['namespace'];
    return namespaces.includes(input.namespace ?? (typeof own === 'string' ? own : ''));
  });
}

/** The request's kind is one of these (by group and kind, as a policy's match names kinds). */
export function kindIn(kinds: readonly KindRef[]): Bool {
  const terms = kinds.map((k) =>
    leaf(
      cel`(request.kind.group == ${celString(k.group)} && request.kind.kind == ${celString(k.kind)})`,
      (env) => inputOf(env).kind.group === k.group && inputOf(env).kind.kind === k.kind,
    ),
  );
  return terms.length === 0 ? FALSE : or(...terms);
}
