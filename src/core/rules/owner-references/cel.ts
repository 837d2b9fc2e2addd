// owner-references in CEL: at most one controller reference, the second one named as the webhook names it. An
// object has a handful of owner references, so comparing with the stored object's is cheap whatever its hooks.
import { secondControllerMessage } from './messages.js';
import { cel, OBJECT, OLD_OBJECT, type Cel } from '../../cel/text.js';
import type { NativeContext, NativeValidating, NativeValidation } from '../../cel/types.js';

const controllers = (o: Cel): Cel =>
  cel`has(${o}.metadata.ownerReferences) ? ${o}.metadata.ownerReferences.filter(r, has(r.controller) && r.controller == true).map(r, string(r.kind) + '/' + string(r.name)) : []`;

export function nativeOwnerReferences(_ctx: NativeContext): NativeValidating {
  // Pre-existing: the stored object had the same first controller and this one too.
  const before = (i: Cel, r: Cel): Cel =>
    cel`(${i} == 0 || (size(variables.oldControllers) > 1 && variables.oldControllers[0] == variables.controllers[0] && variables.oldControllers.exists(o, o == ${r})))`;
  const [i, r] = [cel`i`, cel`r`];
  const validation = (outcome: 'enforced' | 'existing'): NativeValidation => {
    const passes = outcome === 'enforced' ? cel`(${i} == 0 || ${before(i, r)})` : cel`(${i} == 0 || !${before(i, r)})`;
    return {
      outcome,
      expression: cel`variables.controllers.all(i, r, ${passes})`,
      messageExpression: secondControllerMessage.toCel({
        first: cel`variables.controllers[0]`,
        second: cel`variables.controllers.transformList(i, r, !${passes}, r)[0]`,
      }),
      reason: 'Invalid',
    };
  };
  return {
    variables: [
      { name: 'controllers', expression: controllers(OBJECT) },
      {
        name: 'oldControllers',
        expression: cel`request.operation == 'UPDATE' && oldObject != null ? (${controllers(OLD_OBJECT)}) : []`,
      },
    ],
    validations: [validation('enforced'), validation('existing')],
  };
}
