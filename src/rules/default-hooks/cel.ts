// default-hooks as a MutatingAdmissionPolicy JSONPatch: the hook appended when missing, its owner replaced when
// wrong, nothing when present; a malformed stage (a hook without string name and owner) is left alone, as the
// webhook leaves it, and a spec that is no object is replaced, as the webhook replaces it. Cluster API: the
// annotation "<stage prefix>/<name>: <owner>". Whether it writes and on which entry is decision.ts's, shared with
// the webhook's mutation; the operations that write are this file's.
import { hookAnnotationKey } from '../../core/capi.js';
import type { HookCarrier } from '../../core/carriers.js';
import type { DefaultHookRule, Policy } from '../../core/policy.js';
import { kindAndNamespaceCel, labelSelectorCel } from '../../core/cel/selector.js';
import {
  cel,
  celJoin,
  celString,
  hasPath,
  OBJECT,
  OLD_OBJECT,
  pointer,
  select,
  type Cel,
} from '../../core/cel/text.js';
import type { NativeMutation } from '../../core/cel/types.js';
import { not } from '../../core/expr/expr.js';
import { at } from '../../core/expr/lists.js';
import { hookWrite, type HookWrite } from './decision.js';

const patch = (op: 'add' | 'replace' | 'test', path: Cel, value: Cel): Cel =>
  cel`JSONPatch{op: ${celString(op)}, path: ${path}, value: ${value}}`;

/**
 * Nothing to change: a test that cannot hold (the stanza is known to hold the hook, so it is not empty). The API
 * server keeps the object as it came when a JSONPatch test fails; an empty patch it still applies, encoding the
 * object, decoding the result and comparing the two, on every CREATE of an already protected Machine.
 */
const unchanged = (path: string, empty: '[]' | '{}'): Cel =>
  cel`[${patch('test', celString(path), empty === '[]' ? cel`[]` : cel`{}`)}]`;

function listMutation(rule: DefaultHookRule, carrier: HookCarrier): NativeMutation {
  const { name, owner } = rule.hook;
  const hook = cel`{'name': ${celString(name)}, 'owner': ${celString(owner)}}`;
  const stageKeys = [...carrier.root, rule.stage];
  // The deepest missing step gets the rest of the path as one value. A step above the stanzas that is there but not
  // an object (a spec that is a list) is replaced by one, as the webhook's write does (carriers.ts); the stanzas
  // themselves, malformed, are left alone. Each step is tested only once the one above it is known to be an object.
  const steps: Cel[] = [];
  for (let depth = 1; depth <= stageKeys.length; depth++) {
    const keys = stageKeys.slice(0, depth);
    let value = cel`[${hook}]`;
    for (const key of [...stageKeys.slice(depth)].reverse()) value = cel`{${celString(key)}: ${value}}`;
    steps.push(cel`!${hasPath(OBJECT, keys)} ? [${patch('add', celString(pointer(keys)), value)}]`);
    if (depth < carrier.root.length)
      steps.push(cel`type(${select(OBJECT, keys)}) != map ? [${patch('replace', celString(pointer(keys)), value)}]`);
  }
  const stagePointer = pointer(stageKeys);
  const write = hookWrite(rule, carrier);
  const named = write.named as NonNullable<HookWrite['named']>;
  return {
    variables: write.variables.map((v) => v.declaration),
    jsonPatch: celJoin(
      [
        ...steps,
        cel`${not(write.writable).cel} ? []`,
        cel`${write.absent.cel} ? [${patch('add', celString(`${stagePointer}/-`), hook)}]`,
        cel`${write.kept.cel} ? ${unchanged(stagePointer, '[]')}`,
        cel`[${patch('replace', cel`${celString(`${stagePointer}/`)} + string(${at(named, 0).cel}) + '/owner'`, celString(owner))}]`,
      ],
      ' : ',
    ),
  };
}

function annotationMutation(rule: DefaultHookRule, carrier: HookCarrier): NativeMutation {
  const key = celString(hookAnnotationKey(rule.stage, rule.hook.name));
  const owner = celString(rule.hook.owner);
  // The parents of the annotations (spec.template.metadata) exist on every object that can carry them.
  return {
    variables: [],
    jsonPatch: celJoin(
      [
        cel`!${hasPath(OBJECT, carrier.root)} ? [${patch('add', celString(pointer(carrier.root)), cel`{${key}: ${owner}}`)}]`,
        cel`${hookWrite(rule, carrier).kept.cel} ? ${unchanged(pointer(carrier.root), '{}')}`,
        cel`[${patch('add', celString(pointer([...carrier.root, hookAnnotationKey(rule.stage, rule.hook.name)])), owner)}]`,
      ],
      ' : ',
    ),
  };
}

export function nativeDefaultHook(_policy: Policy, rule: DefaultHookRule, carrier: HookCarrier): NativeMutation {
  return carrier.format === 'list' ? listMutation(rule, carrier) : annotationMutation(rule, carrier);
}

/**
 * The UPDATE a default-hook rule acts on, as src/rules/default-hooks/rule.ts decides it: the object is not deleting,
 * its labels match the rule's selector and the stored object's did not. `scope` adds the kind and namespace, which a
 * MutatingAdmissionPolicy's match constraints already say and a webhook's matchCondition must.
 */
export function newlySelectedCel(rule: DefaultHookRule, scope: boolean): Cel {
  const selector = rule.match.labelSelector;
  return celJoin(
    [
      ...(scope ? [kindAndNamespaceCel(rule.match)] : []),
      cel`!has(object.metadata.deletionTimestamp)`,
      cel`(${labelSelectorCel(selector, OBJECT)})`,
      cel`!(${labelSelectorCel(selector, OLD_OBJECT)})`,
    ],
    ' && ',
  );
}
