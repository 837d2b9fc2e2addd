// Rule controller-finalizer: while a Machine carries a hook, only its controller (policy machineControllers) removes
// its controller finalizer or a deleting Machine's last finalizer, so nobody deletes it past its hooks; break-glass
// may, warned and audited. The controllers' own flows: docs/ownership.md#the-machine-controllers-finalizers.
// Written once (src/core/expr): which UPDATEs it judges (the webhook's condition and the native gate too), who may,
// and what it says.
import { wellFormed } from '../../core/carriers.js';
import type { NativeContext, NativeValidating } from '../../core/cel/types.js';
import { compiledPer } from '../../core/expr/compiled.js';
import { and, cond, eq, gt, int, not, oneOf, or, say, str, type Bool, type Str } from '../../core/expr/expr.js';
import { HookEnv, carriesHooks } from '../../core/expr/hooks.js';
import { breakGlassHolder, USERNAME } from '../../core/expr/identity.js';
import { count, emptyList, includes, type List } from '../../core/expr/lists.js';
import { metadataHas, metadataList, operationIs, STORED, type Root } from '../../core/expr/request.js';
import { isDeleting, metadata } from '../../core/guards.js';
import { controllerFinalizerOf, controllerUsernames } from '../../core/machine-controllers.js';
import { breakGlassText } from '../../core/messages/ownership.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { breakGlassFinalizerWarning, FINALIZERS_PATH, heldFinalizerMessage, NO_CONTROLLER } from './messages.js';

/** A break-glass removal of a held finalizer: auditAnnotations key (the webhook prefixes it with its name). */
export const AUDIT_KEY_BREAK_GLASS_FINALIZER = 'break-glass-finalizer-removal';

const finalizersOf = (root: Root): List<unknown> =>
  cond(metadataHas(root, 'finalizers'), metadataList(root, 'finalizers'), emptyList<unknown>());

interface Compiled {
  finalizer: string;
  /**
   * An UPDATE by anyone but the carrier's Machine controller that removes the controller's finalizer, or leaves a
   * deleting Machine without finalizers, while the Machine carries a hook: only what the rule judges, so the
   * controller's own removals and a hook-less Machine's are never sent and a webhook outage never stops them.
   */
  releasedByOther: Bool;
  breakGlass: Bool;
  denial: Str;
  warning: Str;
}

/** Null for a kind without a controller finalizer (kept in the cache as null, unlike undefined). */
const compiled = compiledPer((policy, carrier): Compiled | null => {
  const finalizer = controllerFinalizerOf(carrier);
  if (finalizer === undefined) return null;
  const f = str(finalizer);
  const [now, before] = [finalizersOf('object'), finalizersOf('oldObject')];
  const releases = or(
    and(includes(before, f), not(includes(now, f))),
    and(metadataHas('object', 'deletionTimestamp'), gt(count(before), int(0)), eq(count(now), int(0))),
  );
  const controllers = controllerUsernames(policy, carrier);
  return {
    finalizer,
    releasedByOther: and(
      operationIs('UPDATE'),
      STORED,
      not(oneOf(USERNAME, controllers)),
      carriesHooks(carrier),
      releases,
    ),
    breakGlass: breakGlassHolder(policy),
    denial: say(heldFinalizerMessage, {
      user: USERNAME,
      finalizer: f,
      controllers: str(controllers.join(', ') || NO_CONTROLLER),
      breakGlass: str(breakGlassText(policy)),
    }),
    warning: say(breakGlassFinalizerWarning, { user: USERNAME }),
  };
});

export const controllerFinalizer: Rule = ({ policy, input, carrier, hooks, oldHooks }) => {
  const c = compiled(policy, carrier);
  if (c === null) return { violations: [] };
  const env = new HookEnv(hooks, oldHooks, input, policy);
  if (!c.releasedByOther.js(env)) return { violations: [] };
  if (c.breakGlass.js(env)) {
    // The audit record is the webhook's alone: native mode's break-glass outcome warns without it.
    const audit = {
      key: AUDIT_KEY_BREAK_GLASS_FINALIZER,
      value: JSON.stringify({
        user: input.userInfo.username,
        deleting: isDeleting(input.object),
        finalizers: metadata(input.object)['finalizers'] ?? [],
      }),
    };
    // Every owner whose hook held the Machine: its wait ends without it.
    const owners = [...new Set(wellFormed(hooks.hooks).map((h) => h.owner))];
    const breakGlass = { action: 'finalizer-removal', owners } as const;
    return {
      violations: [],
      notices: [{ rule: 'controller-finalizer', warning: c.warning.js(env), audit, breakGlass }],
    };
  }
  return {
    violations: [
      {
        rule: 'controller-finalizer',
        path: FINALIZERS_PATH,
        message: c.denial.js(env),
        fix: `leave finalizer ${c.finalizer} to the machine's controller: it removes it once the hooks' owners have removed their hooks`,
        key: `controller-finalizer:${c.finalizer}`,
      },
    ],
  };
};

function nativeControllerFinalizer({ policy, view }: NativeContext): NativeValidating {
  const c = compiled(policy, view.carrier);
  if (c === null) return { variables: [], validations: [] };
  const gate = {
    suffix: 'finalizers',
    when: { name: 'releases-held-finalizer', expression: c.releasedByOther.cel },
    updateOnly: true,
    finishingDeletion: true,
  };
  return {
    variables: [],
    validations: [
      { outcome: 'enforced', expression: c.breakGlass.cel, messageExpression: c.denial.cel, reason: 'Forbidden', gate },
      {
        outcome: 'breakGlass',
        expression: not(c.breakGlass).cel,
        messageExpression: c.warning.cel,
        reason: 'Forbidden',
        gate,
      },
    ],
  };
}

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
    const c = carrier === undefined ? null : compiled(policy, carrier);
    return c === null ? { parts: [] } : { parts: [], storedDenial: c.releasedByOther };
  },
  createReads: () => ({ parts: [] }),
  validate: controllerFinalizer,
  native: { validating: nativeControllerFinalizer, readsNameIndex: false },
};
