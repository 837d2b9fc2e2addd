// single-owner in CEL: one owner per hook name across both stages, and reserved names only with their owner (the
// policy's reserved hooks compiled in as a map literal). A stage naming a hook twice cannot be indexed: the
// CRD's list-map key already refuses it, and CEL's index fails the request rather than allow it.
import { existed } from './carrier.js';
import { stringMap } from './text.js';
import type { CelVariable, NativeContext, NativeValidating, NativeValidation } from './types.js';

export function nativeSingleOwner({ policy, cel }: NativeContext): NativeValidating {
  const variables: CelVariable[] = [];
  const validations: NativeValidation[] = [];
  const [drain, term] = cel.stages;
  if (drain && term) {
    // Pre-existing when the stored object had the same name with the same two owners.
    const before = (h: string): string =>
      `(${existed(term, h)} && ${h}.name in ${drain.oldIndex} && ${drain.oldIndex}[${h}.name] == ${drain.index}[${h}.name])`;
    const ok = (h: string): string => `(!(${h}.name in ${drain.index}) || ${drain.index}[${h}.name] == ${h}.owner)`;
    for (const outcome of ['enforced', 'existing'] as const) {
      const passes = (h: string): string =>
        outcome === 'enforced' ? `(${ok(h)} || ${before(h)})` : `(${ok(h)} || !${before(h)})`;
      validations.push({
        outcome,
        expression: `${term.hooks}.all(h, ${passes('h')})`,
        messageExpression:
          `${term.hooks}.transformList(i, h, !${passes('h')}, ${term.ownerPath('i', 'h')} + ': Invalid value: ' + strings.quote(h.owner) + ` +
          `': hook ' + strings.quote(h.name) + ' is owned by ' + strings.quote(${drain.index}[h.name]) + ` +
          `' in preDrain; a hook name must carry the same owner in preDrain and preTerminate')[0]`,
        reason: 'Invalid',
      });
    }
  }
  if (policy.reservedHooks.length > 0) {
    variables.push({ name: 'reserved', expression: stringMap(policy.reservedHooks.map((r) => [r.name, r.owner])) });
    for (const s of cel.stages) {
      const ok = (h: string): string =>
        `(!(${h}.name in variables.reserved) || variables.reserved[${h}.name] == ${h}.owner)`;
      for (const outcome of ['enforced', 'existing'] as const) {
        const passes = (h: string): string =>
          outcome === 'enforced' ? `(${ok(h)} || ${existed(s, h)})` : `(${ok(h)} || !${existed(s, h)})`;
        validations.push({
          outcome,
          expression: `${s.hooks}.all(h, ${passes('h')})`,
          messageExpression:
            `${s.hooks}.transformList(i, h, !${passes('h')}, ${s.ownerPath('i', 'h')} + ': Invalid value: ' + strings.quote(h.owner) + ` +
            `': hook name ' + strings.quote(h.name) + ' is reserved for owner ' + strings.quote(variables.reserved[h.name]))[0]`,
          reason: 'Invalid',
        });
      }
    }
  }
  return { variables, validations };
}
