// Rule single-owner: a hook name is a map key with exactly one owner, and reserved names keep their owner. The
// cross-stage check (pairCheck) and the reserved names (hookCheck) are each written once for both engines; a stage
// naming a hook twice is the webhook's alone (duplicates.ts): native mode's index of a stage by name cannot hold it.
import { and, constant, eq, not, or, say, type Variable } from '../../core/expr/expr.js';
import { hookEnvOf } from '../../core/expr/compiled.js';
import { hookCheck } from '../../core/expr/hook-check.js';
import { hasKey, lookup, stringMap } from '../../core/expr/maps.js';
import { pairCheck } from '../../core/expr/pair-check.js';
import { quote } from '../../core/guards.js';
import type { NativeContext, NativeValidating } from '../../core/cel/types.js';
import type { Policy } from '../../core/policy.js';
import type { CarrierRuleModule, Rule } from '../context.js';
import { singleOwnerDivergences } from './divergences.js';
import { duplicates } from './duplicates.js';
import { crossStageOwnerMessage, reservedNameMessage } from './messages.js';

// The same name in both stanzas names one hook, so one owner: each preTerminate hook against each preDrain hook of
// its name (on Cluster API, "<prefix>/<name>" and a key that only starts with the prefix may both give it).
const crossStage = pairCheck({
  rule: 'single-owner',
  stage: 'preTerminate',
  partnerStage: 'preDrain',
  partners: (h, drain) => drain.named(h.name),
  passes: (h, c, drain) => or(not(hasKey(drain.index, c)), eq(lookup(drain.index, c), h.owner)),
  // The stored object had both hooks with these owners.
  wasStored: (h, c, term, drain) =>
    and(term.wasStored(h), hasKey(drain.oldIndex, c), eq(lookup(drain.oldIndex, c), lookup(drain.index, c))),
  message: (h, c, drain) =>
    say(crossStageOwnerMessage, {
      path: h.ownerPath,
      owner: h.owner,
      name: h.name,
      drainOwner: lookup(drain.index, c),
    }),
  at: 'owner',
  fix: (h) => `use one owner for hook ${quote(h.name)} in both stanzas, or rename one of them`,
  key: (h, drain) => `cross-stage:${quote(h.id)}:${quote(h.owner)}:${quote(drain.id)}:${quote(drain.owner)}`,
  reason: 'Invalid',
  namesHook: true,
});

/** The reserved names, compiled into the check once per policy (none: no check). */
const reservedChecks = new WeakMap<Policy, ReturnType<typeof hookCheck> | null>();
function reservedCheck(policy: Policy): ReturnType<typeof hookCheck> | null {
  let check = reservedChecks.get(policy);
  if (check !== undefined) return check;
  check = null;
  if (policy.reservedHooks.length > 0) {
    // A map, not a search of the policy's list per hook: the cost stays one lookup per hook.
    const reserved: Variable<ReadonlyMap<string, string>> = constant(
      'reserved',
      stringMap(policy.reservedHooks.map((r) => [r.name, r.owner])),
    );
    const owners = reserved.value.js({ memo: undefined });
    check = hookCheck({
      rule: 'single-owner',
      variables: [reserved],
      passes: (h) => or(not(hasKey(reserved, h.name)), eq(lookup(reserved, h.name), h.owner)),
      message: (h) =>
        say(reservedNameMessage, {
          path: h.ownerPath,
          owner: h.owner,
          name: h.name,
          reservedOwner: lookup(reserved, h.name),
        }),
      at: 'owner',
      fix: (h) =>
        `hook ${quote(h.name)} belongs to ${quote(owners.get(h.name) ?? '')}: choose another name for your hook`,
      ratchets: true,
      reason: 'Invalid',
      namesHook: true,
    });
  }
  reservedChecks.set(policy, check);
  return check;
}

export const singleOwner: Rule = (ctx) => {
  const violations = [...duplicates(ctx.carrier, hookEnvOf(ctx)), ...crossStage.validate(ctx).violations];
  const reserved = reservedCheck(ctx.policy);
  if (reserved) violations.push(...reserved.validate(ctx).violations);
  return { violations };
};

function nativeSingleOwner(ctx: NativeContext): NativeValidating {
  const pairs = crossStage.native.validating(ctx);
  const reserved = reservedCheck(ctx.policy)?.native.validating(ctx);
  return {
    variables: [...pairs.variables, ...(reserved?.variables ?? [])],
    validations: [...pairs.validations, ...(reserved?.validations ?? [])],
  };
}

export const singleOwnerRule: CarrierRuleModule<'single-owner'> = {
  id: 'single-owner',
  order: 30,
  enforcement: 'deny',
  ratchets: true,
  sources: ['admission', 'audit', 'validate'],
  selects: 'carriers',
  updateReads: () => ({ parts: ['hooks'] }),
  createReads: () => ({ parts: ['hooks'] }),
  facts: [],
  summary: 'a hook name appears once per stage, carries one owner in both stages, and a reserved name only its owner',
  validate: singleOwner,
  native: { validating: nativeSingleOwner, readsNameIndex: true, divergences: singleOwnerDivergences },
};
