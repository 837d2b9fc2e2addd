// Rule template-hook-removed: a hook an UPDATE removes from (or re-owns in) a MachineSet's, MachineDeployment's or
// ControlPlaneMachineSet's template is missing from every Machine the set makes from then on, which nobody refuses
// (owner-only-removal judges a Machine's removals, and only additions to a template): warned, unless the request is
// the owner's own (a registered identity, or an RBAC grant naming the owner; src/core/ownership.ts byOwner).
import { or, say, str } from '../../core/expr/expr.js';
import { changeCheck } from '../../core/expr/change-check.js';
import { templateHookRemovedMessage } from './messages.js';
import type { CarrierRuleModule } from '../context.js';

const check = changeCheck({
  rule: 'template-hook-removed',
  // A Machine's removals are owner-only-removal's.
  carriers: (carrier) => !carrier.live,
  passes: (o) => or(o.actsFor, o.rbacNamed),
  message: (c, carrier) =>
    say(templateHookRemovedMessage, {
      kind: str(carrier.kind),
      stage: c.stage,
      name: c.name,
      owner: c.owner,
      ownerless: c.ownerless,
      reowned: c.reowned,
    }),
  fix: ({ old }, carrier) =>
    `if its Machines still need it, put ${carrier.hookText(old.stage, old.name, old.owner)} back in ${carrier.stagePath(old.stage)}; its owner removes it without this warning`,
  key: 'template-removal',
  // Every owner of a changed hook is asked about (as the webhook asks), in a policy evaluated only for an UPDATE
  // that changes the hooks: other requests cost one condition.
  family: 'template',
  gate: 'template-removal',
  reason: 'Forbidden',
});

/** Whether RBAC's answer about a removed template hook's owner can decide the rule (ownersToCheck asks then). */
export const templateRemovalRbacDecides = check.rbacDecides;

export const templateHookRemovedRule: CarrierRuleModule<'template-hook-removed'> = {
  id: 'template-hook-removed',
  order: 50,
  enforcement: 'warn',
  // Nothing stored to ratchet: the rule judges what the UPDATE takes away.
  ratchets: false,
  // The audit sees stored objects, never an UPDATE.
  sources: ['admission', 'validate'],
  selects: 'carriers',
  facts: ['ownership'],
  summary:
    "a hook removed from a MachineSet's, MachineDeployment's or ControlPlaneMachineSet's template, or re-owned there, by anyone but its owner: every Machine the set makes from then on lacks it",
  // All it reads of an UPDATE: one that changes no hook is skipped by the API server; a CREATE removes nothing.
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: [] }),
  validate: check.validate,
  native: check.native,
};
