// A hook carrier as CEL sees it: variables that read each stage's hooks from object and oldObject once, and index
// them by identity (a list's name, an annotation key), so every rule's expression is one pass over a hook list with
// O(1) lookups (linear cost).
import { HOOK_ANNOTATION_PREFIX } from '../capi.js';
import { STAGES, type HookCarrier } from '../carriers.js';
import type { Stage } from '../types.js';
import { capitalize, hasPath, select, str } from './text.js';
import type { CelCarrier, CelStage, CelVariable } from './types.js';

const v = (name: string): string => `variables.${name}`;

/** The stored object's value at `keys`, or `empty`, read only on UPDATE (oldObject is null on CREATE). */
function stored(keys: readonly string[], empty: string): string {
  return `request.operation == 'UPDATE' && oldObject != null && ${hasPath('oldObject', keys)} ? ${select('oldObject', keys)} : ${empty}`;
}

function listCarrier(carrier: HookCarrier): CelCarrier {
  const root = carrier.root;
  const variables: CelVariable[] = [
    { name: 'root', expression: `${hasPath('object', root)} ? ${select('object', root)} : {}` },
    { name: 'oldRoot', expression: stored(root, '{}') },
  ];
  const stages: CelStage[] = [];
  for (const stage of STAGES) {
    const names = {
      hooks: stage,
      old: `old${capitalize(stage)}`,
      index: `${stage}Index`,
      oldIndex: `old${capitalize(stage)}Index`,
    };
    variables.push(
      { name: names.hooks, expression: `has(variables.root.${stage}) ? variables.root.${stage} : []` },
      { name: names.old, expression: `has(variables.oldRoot.${stage}) ? variables.oldRoot.${stage} : []` },
      // A list-map keyed by name (the CRD's x-kubernetes-list-map-keys) has unique names, so the index is total.
      { name: names.index, expression: `${v(names.hooks)}.transformMapEntry(i, h, {h.name: h.owner})` },
      { name: names.oldIndex, expression: `${v(names.old)}.transformMapEntry(i, h, {h.name: h.owner})` },
    );
    const stagePath = carrier.stagePath(stage);
    const hookPath = (i: string): string => `${str(`${stagePath}[`)} + string(${i}) + ']'`;
    stages.push({
      stage,
      hooks: v(names.hooks),
      oldHooks: v(names.old),
      index: v(names.index),
      oldIndex: v(names.oldIndex),
      id: (h) => `${h}.name`,
      named: (n) => [n],
      stagePath,
      hookPath,
      namePath: (i) => `${hookPath(i)} + '.name'`,
      ownerPath: (i) => `${hookPath(i)} + '.owner'`,
    });
  }
  // A whole-value comparison: its cost is counted by the top level's size, so even 40,000 hooks cost a few units
  // (an index built here would pass one expression's limit), and any change of the stanzas counts.
  const changesHooks =
    `request.operation == 'UPDATE' && oldObject != null && ` +
    `(${hasPath('oldObject', root)} ? ${select('oldObject', root)} : {}) != (${hasPath('object', root)} ? ${select('object', root)} : {})`;
  const hasHooks = STAGES.map(
    (stage) => `(${hasPath('object', [...root, stage])} && size(${select('object', [...root, stage])}) > 0)`,
  ).join(' || ');
  return { carrier, variables, stages, changesHooks, hasHooks };
}

/** A hook annotation's name: "<prefix>/<name>" gives <name>; a key that only starts with the prefix is its own name. */
export function annotationHookName(stage: Stage, key: string): string {
  const prefix = HOOK_ANNOTATION_PREFIX[stage];
  return `(${key}.startsWith(${str(`${prefix}/`)}) ? ${key}.substring(${prefix.length + 1}) : ${key})`;
}

/** The owner of a hook annotation: its value, a non-string (null) counting as empty, as the webhook reads it. */
const annotationOwner = (value: string): string => `(type(${value}) == string ? ${value} : '')`;

function annotationCarrier(carrier: HookCarrier): CelCarrier {
  const root = carrier.root;
  const variables: CelVariable[] = [
    { name: 'annotations', expression: `${hasPath('object', root)} ? ${select('object', root)} : {}` },
    { name: 'oldAnnotations', expression: stored(root, '{}') },
  ];
  const stages: CelStage[] = [];
  for (const stage of STAGES) {
    const prefix = str(HOOK_ANNOTATION_PREFIX[stage]);
    const names = {
      hooks: stage,
      old: `old${capitalize(stage)}`,
      index: `${stage}Index`,
      oldIndex: `old${capitalize(stage)}Index`,
    };
    const hooks = (from: string): string =>
      `${from}.transformList(k, a, k.startsWith(${prefix}), {'name': ${annotationHookName(stage, 'k')}, 'owner': ${annotationOwner('a')}, 'key': k})`;
    // By key: two keys whose names parse alike are two hooks (each blocks the deletion), and keys are unique.
    const index = (from: string): string =>
      `${from}.transformMapEntry(k, a, k.startsWith(${prefix}), {k: ${annotationOwner('a')}})`;
    variables.push(
      { name: names.hooks, expression: hooks('variables.annotations') },
      { name: names.old, expression: hooks('variables.oldAnnotations') },
      { name: names.index, expression: index('variables.annotations') },
      { name: names.oldIndex, expression: index('variables.oldAnnotations') },
    );
    const stagePath = carrier.stagePath(stage);
    const hookPath = (_i: string, h: string): string => `${str(`${stagePath}[`)} + ${h}.key + ']'`;
    stages.push({
      stage,
      hooks: v(names.hooks),
      oldHooks: v(names.old),
      index: v(names.index),
      oldIndex: v(names.oldIndex),
      id: (h) => `${h}.key`,
      // "<prefix>/<n>", and n itself when it is a key that only starts with the prefix ('' is in no index); typed
      // string, as a list literal's elements must share one type.
      named: (n) => [
        `${str(`${HOOK_ANNOTATION_PREFIX[stage]}/`)} + string(${n})`,
        `(string(${n}).startsWith(${str(`${HOOK_ANNOTATION_PREFIX[stage]}/`)}) ? '' : string(${n}))`,
      ],
      stagePath,
      hookPath,
      namePath: hookPath,
      ownerPath: hookPath,
    });
  }
  const prefixes = STAGES.map((st) => `k.startsWith(${str(HOOK_ANNOTATION_PREFIX[st])})`).join(' || ');
  // Any change of the annotations counts (a superset; see listCarrier).
  const changesHooks =
    `request.operation == 'UPDATE' && oldObject != null && ` +
    `(${hasPath('oldObject', root)} ? ${select('oldObject', root)} : {}) != (${hasPath('object', root)} ? ${select('object', root)} : {})`;
  const hasHooks = `${hasPath('object', root)} && ${select('object', root)}.exists(k, ${prefixes})`;
  return { carrier, variables, stages, changesHooks, hasHooks };
}

export function celCarrier(carrier: HookCarrier): CelCarrier {
  return carrier.format === 'list' ? listCarrier(carrier) : annotationCarrier(carrier);
}

/** Whether hook `h` of a stage was in the stored object with the same identity and owner (what ratcheting compares). */
export function existed(stage: CelStage, h: string): string {
  return `(${stage.id(h)} in ${stage.oldIndex} && ${stage.oldIndex}[${stage.id(h)}] == ${h}.owner)`;
}
