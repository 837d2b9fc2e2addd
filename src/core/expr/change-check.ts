// The shape of a rule judging who removes or re-owns hooks, compiled once for both engines: every hook an UPDATE
// removes or re-owns must pass a predicate of its owner (ownership facts: ./owners.ts), and each that does not is a
// violation. In JavaScript, over the changes the engine reads (ownership.ts ownedChanges). In CEL, over the changed
// hooks' owners (cel/changed-hooks.ts): RBAC's answers come from authorizer checks, one variable per owner a request
// may ask about, so the predicate is compiled once per such owner (one validation each, naming that owner's first
// changed hook: a message expression has no authorizer) and once for every other changed hook, where an owner asked
// about counts as judged by its own validation.
import type { HookCarrier } from '../carriers.js';
import { celCarrier } from '../cel/carrier.js';
import {
  changedAt,
  changedHook,
  changedVariables,
  firstChanged,
  identityVariables,
  rbacVariables,
  type ChangedHookCel,
  type RbacFamily,
} from '../cel/changed-hooks.js';
import { cel, celVariable, type Cel } from '../cel/text.js';
import type { CelStage, NativeContext, NativeForm, NativeValidating, NativeValidation } from '../cel/types.js';
import { quote } from '../guards.js';
import { MAX_OWNERS_CHECKED, ownedChanges, type HookChange } from '../ownership.js';
import type { RuleId, Violation } from '../types.js';
import type { Rule } from '../../rules/context.js';
import { FALSE, not, str, TRUE, type Bool, type Str } from './expr.js';
import { compiledPer } from './compiled.js';
import { askedOwner, changeVar, otherOwner, ChangeEnv, type ChangeVar, type OwnerView } from './owners.js';

export interface ChangeCheck {
  rule: RuleId;
  /** Which carriers it judges at all. */
  carriers: (carrier: HookCarrier) => boolean;
  /** A changed hook passes when this holds of its owner. */
  passes: (o: OwnerView) => Bool;
  message: (c: ChangeVar, carrier: HookCarrier) => Str;
  fix: (change: HookChange, carrier: HookCarrier) => string;
  /** The prefix of a violation's key (what repeated violations and `validate` compare). */
  key: string;
  /** The native variables' family: the owners RBAC is asked about (cel/changed-hooks.ts rbacVariables). */
  family: RbacFamily;
  /** Native mode's policy for these validations: its name suffix, evaluated only for UPDATEs changing the hooks. */
  gate: string;
  reason: 'Invalid' | 'Forbidden';
}

interface Compiled {
  passes: Bool;
  message: Str;
}

/**
 * Whether RBAC's answer about an owner can decide the check for a requester who does (or does not) act for it: the
 * predicate with a named grant and with none, every input a constant. An owner the predicate reads otherwise is asked.
 */
function rbacDecidesFor(check: ChangeCheck): (actsFor: boolean) => boolean {
  return (actsFor) => {
    const view = (rbacNamed: boolean): Bool =>
      check.passes({ owner: str(''), actsFor: actsFor ? TRUE : FALSE, rbacNamed: rbacNamed ? TRUE : FALSE });
    const [granted, none] = [view(true), view(false)];
    return granted !== none || (granted !== TRUE && granted !== FALSE);
  };
}

export function changeCheck(check: ChangeCheck): {
  validate: Rule;
  native: NativeForm;
  rbacDecides: (actsFor: boolean) => boolean;
} {
  // The JavaScript: the owner and change are the environment's; a stage's CEL serves as any other would.
  const compile = compiledPer<Compiled>((policy, carrier) => ({
    passes: check.passes(otherOwner(check.family)),
    message: check.message(changeVar(firstStageChange(carrier)), carrier),
  }));

  const validate: Rule = ({ policy, input, carrier, hooks, oldHooks }) => {
    if (input.operation !== 'UPDATE' || !check.carriers(carrier)) return { violations: [] };
    const changes = ownedChanges(policy, carrier, hooks.hooks, oldHooks.hooks);
    if (changes.length === 0) return { violations: [] };
    const { passes, message } = compile(policy, carrier);
    const env = new ChangeEnv(policy, input);
    const violations: Violation[] = [];
    for (const change of changes) {
      env.change = change;
      if (passes.js(env)) continue;
      const { old } = change;
      violations.push({
        rule: check.rule,
        path: old.path,
        message: message.js(env),
        fix: check.fix(change, carrier),
        hook: { stage: old.stage, name: old.name, owner: old.owner },
        key: `${check.key}:${old.stage}:${quote(old.name)}:${quote(old.owner)}`,
      });
    }
    return { violations };
  };

  const validating = (ctx: NativeContext): NativeValidating => {
    const { policy, view } = ctx;
    if (!check.carriers(view.carrier)) return { variables: [], validations: [] };
    const v = (name: string): Cel => celVariable(`${check.family}${name}`);
    const text = (c: ChangedHookCel): Cel => check.message(changeVar(c), view.carrier).cel;
    const gate = {
      suffix: check.gate,
      when: { name: 'changes-hooks', expression: view.changesHooks },
      updateOnly: true,
      changesHooks: true,
    };
    const validations: NativeValidation[] = [];
    for (let k = 0; k < MAX_OWNERS_CHECKED; k++) {
      const owner = v(`${k}`);
      validations.push({
        outcome: 'enforced',
        expression: cel`size(${v('Unresolved0')}) == 0 || ${owner} == '' || ${check.passes(askedOwner(check.family, k)).cel}`,
        // A passing validation's message is still evaluated: an owner not asked about costs one comparison.
        messageExpression: cel`${owner} == '' ? '' : ${changedAt(ctx, v(`At${k}`), text)}`,
        reason: check.reason,
        gate,
      });
    }
    const passes = check.passes(otherOwner(check.family));
    validations.push({
      outcome: 'enforced',
      expression: cel`variables.changedOwners.all(o, ${passes.cel})`,
      messageExpression: cel`variables.changedOwners.all(o, ${passes.cel}) ? '' : ${firstChanged(ctx, () => not(passes).cel, text)}`,
      reason: check.reason,
      gate,
    });
    return {
      variables: [...identityVariables(policy), ...changedVariables(ctx), ...rbacVariables(check.family, cel`true`)],
      validations,
    };
  };

  return { validate, native: { validating, readsNameIndex: true }, rbacDecides: rbacDecidesFor(check) };
}

/** A changed hook of the carrier's first stage, as CEL reads it: what the JavaScript compilation is built on. */
function firstStageChange(carrier: HookCarrier): ChangedHookCel {
  return changedHook(celCarrier(carrier).stages[0] as CelStage, cel`0`);
}
