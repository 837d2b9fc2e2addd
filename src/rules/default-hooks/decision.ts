// Whether a selected default-hook rule writes its hook, and on which entry, as expressions: read by the webhook's
// mutation on its copy of the object and by the MutatingAdmissionPolicy's JSONPatch, from one definition. How the
// write is made stays each engine's own: carrier.write on the copy, JSONPatch operations in cel.ts.
import type { HookCarrier } from '../../core/carriers.js';
import { cel } from '../../core/cel/text.js';
import { and, cond, eq, FALSE, int, leaf, str, variable, type Bool, type Variable } from '../../core/expr/expr.js';
import type { HookEnv } from '../../core/expr/hooks.js';
import { fieldIsString, isMap, stringField } from '../../core/expr/fields.js';
import { all, at, count, emptyList, indexesWhere } from '../../core/expr/lists.js';
import { objectHas, objectList } from '../../core/expr/request.js';
import type { DefaultHookRule } from '../../core/policy.js';
import { carriesRuleHook } from './selection.js';

export interface HookWrite {
  /** What the CEL declares before its patch (the list carriers' stage, its check and the entries of the hook's name). */
  variables: readonly Variable<unknown>[];
  /** The stage may be rewritten: every entry of it a map with a string name and owner (a list carrier's). */
  writable: Bool;
  /**
   * The write appends: a list without an entry of the hook's name. FALSE for a Cluster API key, which a write sets
   * in place whether or not it is there.
   */
  absent: Bool;
  /** Read unless `absent`: the hook is there with its owner, on the first entry of its identity, so nothing is written. */
  kept: Bool;
  /** A list carrier's entries of the hook's name, by index: the first is the one re-owned. */
  named?: Variable<readonly number[]>;
}

export function hookWrite(rule: DefaultHookRule, carrier: HookCarrier): HookWrite {
  // Cluster API: the hook is its annotation key, unique in the map; a write sets it, whatever was there.
  if (carrier.format === 'annotations')
    return {
      variables: [],
      writable: annotationsWritable(rule),
      absent: FALSE,
      kept: carriesRuleHook(rule, carrier, false),
    };
  const stageKeys = [...carrier.root, rule.stage];
  const stage = variable('stage', cond(objectHas(stageKeys), objectList(stageKeys), emptyList<unknown>()));
  const wellFormed = variable(
    'wellFormed',
    all(stage, 'i', 'h', (_i, h) => and(isMap(h), fieldIsString(h, 'name'), fieldIsString(h, 'owner'))),
  );
  const named = variable(
    'at',
    cond(
      wellFormed,
      indexesWhere(stage, 'i', 'h', (_i, h) => eq(stringField(h, 'name'), str(rule.hook.name))),
      emptyList<number>(),
    ),
  );
  const first = at(stage, at(named, 0));
  return {
    variables: [stage, wellFormed, named],
    writable: wellFormed,
    absent: eq(count(named), int(0)),
    kept: eq(stringField(first, 'owner'), str(rule.hook.owner)),
    named,
  };
}

/**
 * A leaf: the API server sends annotations as strings only (a Go map[string]string), so CEL has nothing to check;
 * the webhook's path also reads YAML (`hookkeeper test`), where a hook annotation may hold a number it must not drop.
 */
function annotationsWritable(rule: DefaultHookRule): Bool {
  return leaf(cel`true`, (env) =>
    (env as HookEnv).hooks.hooks.every((h) => h.stage !== rule.stage || typeof h.owner === 'string'),
  );
}
