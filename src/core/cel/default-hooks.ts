// default-hooks as a MutatingAdmissionPolicy JSONPatch: the hook appended when missing, its owner replaced when
// wrong, nothing when present; a malformed stage (a hook without string name and owner) is left alone, as the
// webhook leaves it, and a spec that is no object is replaced, as the webhook replaces it. Cluster API: the
// annotation "<stage prefix>/<name>: <owner>".
import { hookAnnotationKey } from '../capi.js';
import type { HookCarrier } from '../carriers.js';
import type { DefaultHookRule, Policy } from '../policy.js';
import { kindAndNamespaceCel, labelSelectorCel } from './selector.js';
import { hasPath, pointer, select, str } from './text.js';
import type { NativeMutation } from './types.js';

const patch = (op: 'add' | 'replace' | 'test', path: string, value: string): string =>
  `JSONPatch{op: ${str(op)}, path: ${path}, value: ${value}}`;

/**
 * Nothing to change: a test that cannot hold (the stanza is known to hold the hook, so it is not empty). The API
 * server keeps the object as it came when a JSONPatch test fails; an empty patch it still applies, encoding the
 * object, decoding the result and comparing the two, on every CREATE of an already protected Machine.
 */
const unchanged = (path: string, empty: '[]' | '{}'): string => `[${patch('test', str(path), empty)}]`;

function listMutation(rule: DefaultHookRule, carrier: HookCarrier): NativeMutation {
  const { name, owner } = rule.hook;
  const hook = `{'name': ${str(name)}, 'owner': ${str(owner)}}`;
  const stageKeys = [...carrier.root, rule.stage];
  // The deepest missing step gets the rest of the path as one value. A step above the stanzas that is there but not
  // an object (a spec that is a list) is replaced by one, as the webhook's write does (carriers.ts); the stanzas
  // themselves, malformed, are left alone. Each step is tested only once the one above it is known to be an object.
  const steps: string[] = [];
  for (let depth = 1; depth <= stageKeys.length; depth++) {
    const keys = stageKeys.slice(0, depth);
    let value = `[${hook}]`;
    for (const key of [...stageKeys.slice(depth)].reverse()) value = `{${str(key)}: ${value}}`;
    steps.push(`!${hasPath('object', keys)} ? [${patch('add', str(pointer(keys)), value)}]`);
    if (depth < carrier.root.length)
      steps.push(`type(${select('object', keys)}) != map ? [${patch('replace', str(pointer(keys)), value)}]`);
  }
  const at = select('object', stageKeys);
  const stagePointer = pointer(stageKeys);
  return {
    variables: [
      { name: 'stage', expression: `${hasPath('object', stageKeys)} ? ${at} : []` },
      {
        name: 'wellFormed',
        expression: `variables.stage.all(h, type(h) == map && has(h.name) && type(h.name) == string && has(h.owner) && type(h.owner) == string)`,
      },
      {
        name: 'at',
        expression: `variables.wellFormed ? variables.stage.transformList(i, h, h.name == ${str(name)}, i) : []`,
      },
    ],
    jsonPatch:
      `${steps.join(' : ')} : !variables.wellFormed ? [] : ` +
      `size(variables.at) == 0 ? [${patch('add', str(`${stagePointer}/-`), hook)}] : ` +
      `variables.stage[variables.at[0]].owner == ${str(owner)} ? ${unchanged(stagePointer, '[]')} : ` +
      `[${patch('replace', `${str(`${stagePointer}/`)} + string(variables.at[0]) + '/owner'`, str(owner))}]`,
  };
}

function annotationMutation(rule: DefaultHookRule, carrier: HookCarrier): NativeMutation {
  const key = hookAnnotationKey(rule.stage, rule.hook.name);
  const owner = str(rule.hook.owner);
  const annotations = select('object', carrier.root);
  // The parents of the annotations (spec.template.metadata) exist on every object that can carry them.
  return {
    variables: [],
    jsonPatch:
      `!${hasPath('object', carrier.root)} ? [${patch('add', str(pointer(carrier.root)), `{${str(key)}: ${owner}}`)}] : ` +
      `${str(key)} in ${annotations} && ${annotations}[${str(key)}] == ${owner} ? ${unchanged(pointer(carrier.root), '{}')} : ` +
      `[${patch('add', str(pointer([...carrier.root, key])), owner)}]`,
  };
}

export function nativeDefaultHook(_policy: Policy, rule: DefaultHookRule, carrier: HookCarrier): NativeMutation {
  return carrier.format === 'list' ? listMutation(rule, carrier) : annotationMutation(rule, carrier);
}

/**
 * The UPDATE a default-hook rule acts on, as src/core/rules/default-hooks.ts decides it: the object is not deleting,
 * its labels match the rule's selector and the stored object's did not. `scope` adds the kind and namespace, which a
 * MutatingAdmissionPolicy's match constraints already say and a webhook's matchCondition must.
 */
export function newlySelectedCel(rule: DefaultHookRule, scope: boolean): string {
  const selector = rule.match.labelSelector;
  return [
    ...(scope ? [kindAndNamespaceCel(rule.match)] : []),
    '!has(object.metadata.deletionTimestamp)',
    `(${labelSelectorCel(selector, 'object')})`,
    `!(${labelSelectorCel(selector, 'oldObject')})`,
  ].join(' && ');
}
