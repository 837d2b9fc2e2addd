// A hook carrier as CEL sees it: variables that read each stage's hooks from object and oldObject once, and index
// them by identity (a list's name, an annotation key), so every rule's expression is one pass over a hook list with
// O(1) lookups (linear cost).
import { HOOK_ANNOTATION_PREFIX } from '../capi.js';
import type { HookCarrier } from '../carriers.js';
import type { Stage } from '../types.js';
import {
  capitalize,
  cel,
  celJoin,
  celString,
  celVariable,
  hasPath,
  OBJECT,
  OLD_OBJECT,
  select,
  type Cel,
} from './text.js';
import type { CelCarrier, CelStage, CelVariable } from './types.js';

/** The stored object's value at `keys`, or `empty`, read only on UPDATE (oldObject is null on CREATE). */
function stored(keys: readonly string[], empty: Cel): Cel {
  return cel`request.operation == 'UPDATE' && oldObject != null && ${hasPath(OLD_OBJECT, keys)} ? ${select(OLD_OBJECT, keys)} : ${empty}`;
}

/** The value at `keys` of `base`, or {}. */
const rootOf = (base: Cel, keys: readonly string[]): Cel => cel`${hasPath(base, keys)} ? ${select(base, keys)} : {}`;

/** A whole-value comparison of the carrier's root in the stored and the new object (UPDATE only). */
function changesRoot(root: readonly string[]): Cel {
  return cel`request.operation == 'UPDATE' && oldObject != null && (${rootOf(OLD_OBJECT, root)}) != (${rootOf(OBJECT, root)})`;
}

function stageNames(stage: Stage): { hooks: string; old: string; index: string; oldIndex: string } {
  return {
    hooks: stage,
    old: `old${capitalize(stage)}`,
    index: `${stage}Index`,
    oldIndex: `old${capitalize(stage)}Index`,
  };
}

function listCarrier(carrier: HookCarrier): CelCarrier {
  const root = carrier.root;
  const variables: CelVariable[] = [
    { name: 'root', expression: rootOf(OBJECT, root) },
    { name: 'oldRoot', expression: stored(root, cel`{}`) },
  ];
  const stages: CelStage[] = [];
  for (const stage of carrier.stages) {
    const names = stageNames(stage);
    const field = select(celVariable('root'), [stage]);
    const oldField = select(celVariable('oldRoot'), [stage]);
    variables.push(
      { name: names.hooks, expression: cel`has(${field}) ? ${field} : []` },
      { name: names.old, expression: cel`has(${oldField}) ? ${oldField} : []` },
      // A list-map keyed by name (the CRD's x-kubernetes-list-map-keys) has unique names, so the index is total.
      { name: names.index, expression: cel`${celVariable(names.hooks)}.transformMapEntry(i, h, {h.name: h.owner})` },
      { name: names.oldIndex, expression: cel`${celVariable(names.old)}.transformMapEntry(i, h, {h.name: h.owner})` },
    );
    const stagePath = carrier.stagePath(stage);
    const hookPath = (i: Cel): Cel => cel`${celString(`${stagePath}[`)} + string(${i}) + ']'`;
    stages.push({
      stage,
      hooks: celVariable(names.hooks),
      oldHooks: celVariable(names.old),
      index: celVariable(names.index),
      oldIndex: celVariable(names.oldIndex),
      id: (h) => cel`${h}.name`,
      named: (n) => [n],
      stagePath,
      hookPath,
      namePath: (i) => cel`${hookPath(i)} + '.name'`,
      ownerPath: (i) => cel`${hookPath(i)} + '.owner'`,
    });
  }
  // A whole-value comparison: its cost is counted by the top level's size, so it costs a few units however many
  // hooks there are (an index built here would pass one expression's limit), and any change of the stanzas counts.
  const hasHooks = celJoin(
    carrier.stages.map(
      (stage) => cel`(${hasPath(OBJECT, [...root, stage])} && size(${select(OBJECT, [...root, stage])}) > 0)`,
    ),
    ' || ',
  );
  return { carrier, variables, stages, changesHooks: changesRoot(root), hasHooks };
}

/** A hook annotation's name: "<prefix>/<name>" gives <name>; a key that only starts with the prefix is its own name. */
export function annotationHookName(stage: Stage, key: Cel): Cel {
  const prefix = HOOK_ANNOTATION_PREFIX[stage];
  return cel`(${key}.startsWith(${celString(`${prefix}/`)}) ? ${key}.substring(${prefix.length + 1}) : ${key})`;
}

/** The owner of a hook annotation: its value, a non-string (null) counting as empty, as the webhook reads it. */
const annotationOwner = (value: Cel): Cel => cel`(type(${value}) == string ? ${value} : '')`;

function annotationCarrier(carrier: HookCarrier): CelCarrier {
  const root = carrier.root;
  const variables: CelVariable[] = [
    { name: 'annotations', expression: rootOf(OBJECT, root) },
    { name: 'oldAnnotations', expression: stored(root, cel`{}`) },
  ];
  const stages: CelStage[] = [];
  const k = cel`k`;
  const a = cel`a`;
  for (const stage of carrier.stages) {
    const prefix = celString(HOOK_ANNOTATION_PREFIX[stage]);
    const names = stageNames(stage);
    const hooks = (from: Cel): Cel =>
      cel`${from}.transformList(k, a, k.startsWith(${prefix}), {'name': ${annotationHookName(stage, k)}, 'owner': ${annotationOwner(a)}, 'key': k})`;
    // By key: two keys whose names parse alike are two hooks (each blocks the deletion), and keys are unique.
    const index = (from: Cel): Cel =>
      cel`${from}.transformMapEntry(k, a, k.startsWith(${prefix}), {k: ${annotationOwner(a)}})`;
    variables.push(
      { name: names.hooks, expression: hooks(celVariable('annotations')) },
      { name: names.old, expression: hooks(celVariable('oldAnnotations')) },
      { name: names.index, expression: index(celVariable('annotations')) },
      { name: names.oldIndex, expression: index(celVariable('oldAnnotations')) },
    );
    const stagePath = carrier.stagePath(stage);
    const hookPath = (_i: Cel, h: Cel): Cel => cel`${celString(`${stagePath}[`)} + ${h}.key + ']'`;
    const slashed = celString(`${HOOK_ANNOTATION_PREFIX[stage]}/`);
    stages.push({
      stage,
      hooks: celVariable(names.hooks),
      oldHooks: celVariable(names.old),
      index: celVariable(names.index),
      oldIndex: celVariable(names.oldIndex),
      id: (h) => cel`${h}.key`,
      // "<prefix>/<n>", and n itself when it is a key that only starts with the prefix ('' is in no index); typed
      // string, as a list literal's elements must share one type.
      named: (n) => [cel`${slashed} + string(${n})`, cel`(string(${n}).startsWith(${slashed}) ? '' : string(${n}))`],
      stagePath,
      hookPath,
      namePath: hookPath,
      ownerPath: hookPath,
    });
  }
  const prefixes = celJoin(
    carrier.stages.map((st) => cel`k.startsWith(${celString(HOOK_ANNOTATION_PREFIX[st])})`),
    ' || ',
  );
  // Any change of the annotations counts (a superset; see listCarrier).
  const hasHooks = cel`${hasPath(OBJECT, root)} && ${select(OBJECT, root)}.exists(k, ${prefixes})`;
  return { carrier, variables, stages, changesHooks: changesRoot(root), hasHooks };
}

export function celCarrier(carrier: HookCarrier): CelCarrier {
  return carrier.format === 'list' ? listCarrier(carrier) : annotationCarrier(carrier);
}

/**
 * CEL bool: hook `h` of a stage was in the stored object with the same identity and owner (what ratcheting
 * compares, and what the deletion freeze and the ownership rules let pass).
 */
export function celWasStored(stage: CelStage, h: Cel): Cel {
  return cel`(${stage.id(h)} in ${stage.oldIndex} && ${stage.oldIndex}[${stage.id(h)}] == ${h}.owner)`;
}
