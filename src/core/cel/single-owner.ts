// single-owner in CEL: one owner per hook name across both stages, and reserved names only with their owner (the
// policy's reserved hooks compiled in as a map literal). A list naming a hook twice cannot be indexed by name: the
// CRD's list-map key already refuses it, and CEL's index fails the request rather than allow it. Annotation keys
// are unique, and indexed by key.
import { existed } from './carrier.js';
import { stringMap } from './text.js';
import type { CelVariable, NativeContext, NativeValidating, NativeValidation } from './types.js';

export function nativeSingleOwner({ policy, cel }: NativeContext): NativeValidating {
  const variables: CelVariable[] = [];
  const validations: NativeValidation[] = [];
  const [drain, term] = cel.stages;
  if (drain && term) {
    // Each preDrain hook of h's name (on Cluster API, "<prefix>/<name>" and a key that only starts with the prefix
    // may both give it), bound to c: a conflict was there when the stored object had both hooks with these owners.
    const before = (h: string, c: string): string =>
      `(${existed(term, h)} && ${c} in ${drain.oldIndex} && ${drain.oldIndex}[${c}] == ${drain.index}[${c}])`;
    const ok = (h: string, c: string): string => `(!(${c} in ${drain.index}) || ${drain.index}[${c}] == ${h}.owner)`;
    const drains = (h: string): string => `[${drain.named(`${h}.name`).join(', ')}]`;
    for (const outcome of ['enforced', 'existing'] as const) {
      const pair = (h: string, c: string): string =>
        outcome === 'enforced' ? `(${ok(h, c)} || ${before(h, c)})` : `(${ok(h, c)} || !${before(h, c)})`;
      const passes = (h: string): string => `${drains(h)}.all(c, ${pair(h, 'c')})`;
      validations.push({
        outcome,
        expression: `${term.hooks}.all(h, ${passes('h')})`,
        messageExpression:
          `${term.hooks}.transformList(i, h, !${passes('h')}, ${term.ownerPath('i', 'h')} + ': Invalid value: ' + strings.quote(h.owner) + ` +
          `': hook ' + strings.quote(h.name) + ' is owned by ' + strings.quote(${drain.index}[${drains('h')}.filter(c, !${pair('h', 'c')})[0]]) + ` +
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
