// single-owner in CEL: one owner per hook name across both stages, and reserved names only with their owner (the
// policy's reserved hooks compiled in as a map literal). A list naming a hook twice cannot be indexed by name: the
// CRD's list-map key already refuses it, and CEL's index fails the request rather than allow it. Annotation keys
// are unique, and indexed by key.
import { crossStageOwnerMessage, reservedNameMessage } from './messages.js';
import { celWasStored } from '../../cel/carrier.js';
import { cel, celList, celStringMap, type Cel } from '../../cel/text.js';
import type { CelVariable, NativeContext, NativeValidating, NativeValidation } from '../../cel/types.js';

export function nativeSingleOwner({ policy, view: carrier }: NativeContext): NativeValidating {
  const variables: CelVariable[] = [];
  const validations: NativeValidation[] = [];
  const [drain, term] = carrier.stages;
  const [i, h, c] = [cel`i`, cel`h`, cel`c`];
  if (drain && term) {
    // Each preDrain hook of h's name (on Cluster API, "<prefix>/<name>" and a key that only starts with the prefix
    // may both give it), bound to c: a conflict was there when the stored object had both hooks with these owners.
    const before = cel`(${celWasStored(term, h)} && ${c} in ${drain.oldIndex} && ${drain.oldIndex}[${c}] == ${drain.index}[${c}])`;
    const ok = cel`(!(${c} in ${drain.index}) || ${drain.index}[${c}] == ${h}.owner)`;
    const drains = celList(drain.named(cel`${h}.name`));
    for (const outcome of ['enforced', 'existing'] as const) {
      const pair = outcome === 'enforced' ? cel`(${ok} || ${before})` : cel`(${ok} || !${before})`;
      const passes = cel`${drains}.all(c, ${pair})`;
      const message = crossStageOwnerMessage.toCel({
        path: term.ownerPath(i, h),
        owner: cel`h.owner`,
        name: cel`h.name`,
        drainOwner: cel`${drain.index}[${drains}.filter(c, !${pair})[0]]`,
      });
      validations.push({
        outcome,
        expression: cel`${term.hooks}.all(h, ${passes})`,
        messageExpression: cel`${term.hooks}.transformList(i, h, !${passes}, ${message})[0]`,
        reason: 'Invalid',
      });
    }
  }
  if (policy.reservedHooks.length > 0) {
    variables.push({
      name: 'reserved',
      expression: celStringMap(policy.reservedHooks.map((r) => [r.name, r.owner])),
    });
    for (const s of carrier.stages) {
      const ok = cel`(!(${h}.name in variables.reserved) || variables.reserved[${h}.name] == ${h}.owner)`;
      for (const outcome of ['enforced', 'existing'] as const) {
        const passes: Cel =
          outcome === 'enforced' ? cel`(${ok} || ${celWasStored(s, h)})` : cel`(${ok} || !${celWasStored(s, h)})`;
        const message = reservedNameMessage.toCel({
          path: s.ownerPath(i, h),
          owner: cel`h.owner`,
          name: cel`h.name`,
          reservedOwner: cel`variables.reserved[h.name]`,
        });
        validations.push({
          outcome,
          expression: cel`${s.hooks}.all(h, ${passes})`,
          messageExpression: cel`${s.hooks}.transformList(i, h, !${passes}, ${message})[0]`,
          reason: 'Invalid',
        });
      }
    }
  }
  return { variables, validations };
}
