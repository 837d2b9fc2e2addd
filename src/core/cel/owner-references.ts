// owner-references in CEL: at most one controller reference, the second one named as the webhook names it. An
// object has a handful of owner references, so comparing with the stored object's is cheap whatever its hooks.
import type { NativeContext, NativeValidating } from './types.js';

const controllers = (o: string): string =>
  `has(${o}.metadata.ownerReferences) ? ${o}.metadata.ownerReferences.filter(r, has(r.controller) && r.controller == true).map(r, string(r.kind) + '/' + string(r.name)) : []`;

export function nativeOwnerReferences(_ctx: NativeContext): NativeValidating {
  // Pre-existing: the stored object had the same first controller and this one too.
  const before = (i: string, r: string): string =>
    `(${i} == 0 || (size(variables.oldControllers) > 1 && variables.oldControllers[0] == variables.controllers[0] && variables.oldControllers.exists(o, o == ${r})))`;
  const validation = (outcome: 'enforced' | 'existing') => {
    const passes = (i: string, r: string): string =>
      outcome === 'enforced' ? `(${i} == 0 || ${before(i, r)})` : `(${i} == 0 || !${before(i, r)})`;
    return {
      outcome,
      expression: `variables.controllers.all(i, r, ${passes('i', 'r')})`,
      messageExpression:
        `'metadata.ownerReferences: Invalid value: Only one reference can have Controller set to true. Found "true" in references for ' + ` +
        `variables.controllers[0] + ' and ' + variables.controllers.transformList(i, r, !${passes('i', 'r')}, r)[0]`,
      reason: 'Invalid' as const,
    };
  };
  return {
    variables: [
      { name: 'controllers', expression: controllers('object') },
      {
        name: 'oldControllers',
        expression: `request.operation == 'UPDATE' && oldObject != null ? (${controllers('oldObject')}) : []`,
      },
    ],
    validations: [validation('enforced'), validation('existing')],
  };
}
