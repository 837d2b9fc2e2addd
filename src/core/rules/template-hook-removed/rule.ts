// Rule template-hook-removed: a hook an UPDATE removes from (or re-owns in) a MachineSet's, MachineDeployment's or
// ControlPlaneMachineSet's template is missing from every Machine the set makes from then on, which nobody refuses
// (owner-only-removal judges a Machine's removals, and only additions to a template): warned, unless the request is
// the owner's own (src/core/ownership.ts byOwner: a registered identity, or an RBAC grant naming the owner).
import { quote } from '../../guards.js';
import { nativeTemplateHookRemoved } from './cel.js';
import { templateHookRemovedMessage } from './messages.js';
import { byOwner, ownedChanges } from '../../ownership.js';
import type { Violation } from '../../types.js';
import type { CarrierRuleModule } from '../context.js';

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
  validate: ({ policy, input, carrier, hooks, oldHooks }) => {
    if (input.operation !== 'UPDATE' || carrier.live) return { violations: [] };
    const violations: Violation[] = [];
    for (const { old, now } of ownedChanges(policy, carrier, hooks.hooks, oldHooks.hooks)) {
      if (byOwner(policy, input, old.owner)) continue;
      violations.push({
        rule: 'template-hook-removed',
        path: old.path,
        message: templateHookRemovedMessage.toJs({
          kind: carrier.kind,
          stage: old.stage,
          name: old.name,
          owner: old.owner,
          ownerless: old.owner === '',
          reowned: now !== undefined,
        }),
        fix: `if its Machines still need it, put ${carrier.hookText(old.stage, old.name, old.owner)} back in ${carrier.stagePath(old.stage)}; its owner removes it without this warning`,
        hook: { stage: old.stage, name: old.name, owner: old.owner },
        key: `template-removal:${old.stage}:${quote(old.name)}:${quote(old.owner)}`,
      });
    }
    return { violations };
  },
  native: { validating: nativeTemplateHookRemoved, readsNameIndex: true },
};
