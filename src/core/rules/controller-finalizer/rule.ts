// Rule controller-finalizer: while a Machine carries a hook, only its controller (policy machineControllers) removes
// its controller finalizer or a deleting Machine's last finalizer, so nobody deletes it past its hooks; break-glass
// may, warned and audited. The controllers' own flows: docs/ownership.md#the-machine-controllers-finalizers.
import { wellFormed } from '../../carriers.js';
import { isBreakGlass } from '../../identity.js';
import {
  controllerFinalizerOf,
  controllerUsernames,
  isMachineController,
  releasesMachine,
} from '../../machine-controllers.js';
import { breakGlassFinalizerWarning, FINALIZERS_PATH, heldFinalizerMessage, NO_CONTROLLER } from './messages.js';
import { breakGlassText } from '../../messages/ownership.js';
import { isDeleting, metadata } from '../../guards.js';
import { nativeControllerFinalizer, releasedByOther } from './cel.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { leaf } from '../../expr/expr.js';
import type { RequestEnv } from '../../expr/request.js';

/** A break-glass removal of a held finalizer: auditAnnotations key (the webhook prefixes it with its name). */
export const AUDIT_KEY_BREAK_GLASS_FINALIZER = 'break-glass-finalizer-removal';

export const controllerFinalizer: Rule = ({ policy, input, carrier, hooks }) => {
  const finalizer = controllerFinalizerOf(carrier);
  if (input.operation !== 'UPDATE' || finalizer === undefined || hooks.hooks.length === 0) return { violations: [] };
  if (!releasesMachine(carrier, input.object, input.oldObject)) return { violations: [] };
  const user = input.userInfo;
  if (isMachineController(user, policy, carrier)) return { violations: [] };
  if (isBreakGlass(user, policy)) {
    const audit = {
      key: AUDIT_KEY_BREAK_GLASS_FINALIZER,
      value: JSON.stringify({
        user: user.username,
        deleting: isDeleting(input.object),
        finalizers: metadata(input.object)['finalizers'] ?? [],
      }),
    };
    const warning = breakGlassFinalizerWarning.toJs({ user: user.username });
    // Every owner whose hook held the Machine: its wait ends without it.
    const owners = [...new Set(wellFormed(hooks.hooks).map((h) => h.owner))];
    const breakGlass = { action: 'finalizer-removal', owners } as const;
    return { violations: [], notices: [{ rule: 'controller-finalizer', warning, audit, breakGlass }] };
  }
  const controllers = controllerUsernames(policy, carrier).join(', ') || NO_CONTROLLER;
  return {
    violations: [
      {
        rule: 'controller-finalizer',
        path: FINALIZERS_PATH,
        message: heldFinalizerMessage.toJs({
          user: user.username,
          finalizer,
          controllers,
          breakGlass: breakGlassText(policy),
        }),
        fix: `leave finalizer ${finalizer} to the machine's controller: it removes it once the hooks' owners have removed their hooks`,
        key: `controller-finalizer:${finalizer}`,
      },
    ],
  };
};

export const controllerFinalizerRule: CarrierRuleModule<'controller-finalizer'> = {
  id: 'controller-finalizer',
  order: 70,
  enforcement: 'deny',
  ratchets: false,
  sources: ['admission', 'validate'],
  selects: 'carriers',
  facts: [],
  // A deleting Machine losing its last finalizer is what it judges (the engine skips that update for other rules).
  judgesFinalizerRemovals: true,
  summary:
    "while a Machine carries a hook, only its controller (or break-glass, audited) removes its controller's finalizer or a deleting Machine's last finalizer",
  // Only the removals it judges, and not the controller's own: not the whole finalizer list.
  updateReads: (policy, carrier) => {
    const sent = carrier === undefined ? undefined : releasedByOther(policy, carrier);
    if (carrier === undefined || sent === undefined) return { parts: [] };
    // A leaf until this rule's predicate is an expression too: its CEL and its TypeScript, side by side.
    const holds = leaf(sent, (env) => {
      const { input } = env as unknown as RequestEnv;
      return (
        !isMachineController(input.userInfo, policy, carrier) &&
        carrier.read(input.object).hooks.length > 0 &&
        releasesMachine(carrier, input.object, input.oldObject)
      );
    });
    return { parts: [], storedDenial: holds };
  },
  createReads: () => ({ parts: [] }),
  validate: controllerFinalizer,
  native: { validating: nativeControllerFinalizer, readsNameIndex: false },
};
