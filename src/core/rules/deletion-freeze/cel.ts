// deletion-freeze in CEL: on an UPDATE of a deleting Machine every hook of a stage must be in the stored object
// with the same owner; the message is machine-api-operator's, hooks printed as Go's %+v prints them.
import { deletionFreezeMessage, goHookMessage, STAGE_WORDS } from './messages.js';
import { MAX_VIOLATION_BYTES } from '../../messages/limits.js';
import { celWasStored } from '../../cel/carrier.js';
import { cel, celString } from '../../cel/text.js';
import type { NativeContext, NativeValidating, NativeValidation } from '../../cel/types.js';

const MAX = MAX_VIOLATION_BYTES;

export function nativeDeletionFreeze({ view: carrier }: NativeContext): NativeValidating {
  if (!carrier.carrier.gatesDeletion) return { variables: [], validations: [] };
  const h = cel`h`;
  const validations: NativeValidation[] = carrier.stages.map((s) => {
    const kept = celWasStored(s, h);
    const hooks = cel`${s.hooks}.filter(h, !${kept}).map(h, ${goHookMessage.toCel({ name: cel`h.name`, owner: cel`h.owner` })}).join(' ')`;
    const message = deletionFreezeMessage.toCel({
      path: celString(s.stagePath),
      stageWords: celString(STAGE_WORDS[s.stage]),
      hooks,
    });
    return {
      outcome: 'enforced',
      expression: cel`!variables.deleting || ${s.hooks}.all(h, ${kept})`,
      // Cut as the webhook cuts one violation (MAX_VIOLATION_BYTES, counted in characters here), under the API
      // server's 5 KiB limit on an evaluated message; built once, and only for a deleting Machine (the API server
      // evaluates every message expression on every request).
      messageExpression: cel`!variables.deleting ? '' : [${message}].map(m, size(m) > ${MAX} ? m.substring(0, ${MAX - 3}) + '...' : m)[0]`,
      reason: 'Forbidden',
    };
  });
  return {
    variables: [
      {
        name: 'deleting',
        expression: cel`request.operation == 'UPDATE' && has(object.metadata.deletionTimestamp) && object.metadata.deletionTimestamp != ''`,
      },
    ],
    validations,
  };
}
