// controller-finalizer in CEL: which UPDATEs release a hook-carrying Machine's controller finalizer by someone other
// than its controller (the webhook's and the native policies' condition, and the native gate), and the native
// validations: refused unless break-glass, whose removal is warned and audited.
import type { HookCarrier } from '../../carriers.js';
import { controllerFinalizerOf, controllerUsernames } from '../../machine-controllers.js';
import { breakGlassFinalizerWarning, heldFinalizerMessage, NO_CONTROLLER } from './messages.js';
import { breakGlassText } from '../../messages/ownership.js';
import type { Policy } from '../../policy.js';
import { celCarrier } from '../../cel/carrier.js';
import { breakGlassUser } from '../owner-only-removal/cel-messages.js';
import { cel, celString, celStringSet, USER, type Cel } from '../../cel/text.js';
import type { NativeContext, NativeValidating } from '../../cel/types.js';

const finalizers = (base: string): Cel =>
  cel`(has(${base as Cel}.metadata.finalizers) ? ${base as Cel}.metadata.finalizers : [])`;

/**
 * An UPDATE by anyone but the carrier's Machine controller that removes the controller's finalizer, or leaves a
 * deleting Machine without finalizers, while the Machine carries a hook (src/core/machine-controllers.ts
 * releasesMachine); undefined for a kind without a controller finalizer. Only what the rule judges: the
 * controller's own removals and a hook-less Machine's are never sent, so a webhook outage never stops them.
 */
export function releasedByOther(policy: Policy, carrier: HookCarrier): Cel | undefined {
  const finalizer = controllerFinalizerOf(carrier);
  if (finalizer === undefined) return undefined;
  const f = celString(finalizer);
  const [now, before] = [finalizers('object'), finalizers('oldObject')];
  const release = cel`((${f} in ${before} && !(${f} in ${now})) || (has(object.metadata.deletionTimestamp) && size(${before}) > 0 && size(${now}) == 0))`;
  return cel`request.operation == 'UPDATE' && oldObject != null && !(${USER} in ${celStringSet(controllerUsernames(policy, carrier))}) && (${celCarrier(carrier).hasHooks}) && ${release}`;
}

export function nativeControllerFinalizer({ policy, view }: NativeContext): NativeValidating {
  const finalizer = controllerFinalizerOf(view.carrier);
  const when = releasedByOther(policy, view.carrier);
  if (finalizer === undefined || when === undefined) return { variables: [], validations: [] };
  const gate = {
    suffix: 'finalizers',
    when: { name: 'releases-held-finalizer', expression: when },
    updateOnly: true,
    finishingDeletion: true,
  };
  const breakGlass = cel`(${breakGlassUser(policy)})`;
  return {
    variables: [],
    validations: [
      {
        outcome: 'enforced',
        expression: breakGlass,
        messageExpression: heldFinalizerMessage.toCel({
          user: USER,
          finalizer: celString(finalizer),
          controllers: celString(controllerUsernames(policy, view.carrier).join(', ') || NO_CONTROLLER),
          breakGlass: celString(breakGlassText(policy)),
        }),
        reason: 'Forbidden',
        gate,
      },
      {
        outcome: 'breakGlass',
        expression: cel`!${breakGlass}`,
        messageExpression: breakGlassFinalizerWarning.toCel({ user: USER }),
        reason: 'Forbidden',
        gate,
      },
    ],
  };
}
