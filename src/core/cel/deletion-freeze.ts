// deletion-freeze in CEL: on an UPDATE of a deleting Machine every hook of a stage must be in the stored object
// with the same owner; the message is machine-api-operator's, hooks printed as Go's %+v prints them.
import { existed } from './carrier.js';
import { str } from './text.js';
import type { NativeContext, NativeValidating, NativeValidation } from './types.js';

/** The webhook's MAX_VIOLATION_BYTES (src/admission/limits.ts; test/native/render.test.ts keeps them equal). */
export const FREEZE_MESSAGE_MAX = 2 * 1024;
const MAX = FREEZE_MESSAGE_MAX;
const STAGE_WORDS = { preDrain: 'pre-drain', preTerminate: 'pre-terminate' } as const;

export function nativeDeletionFreeze({ cel }: NativeContext): NativeValidating {
  if (!cel.carrier.live) return { variables: [], validations: [] };
  const validations: NativeValidation[] = cel.stages.map((s) => {
    const kept = (h: string): string => existed(s, h);
    const message =
      `${str(`${s.stagePath}: Forbidden: ${STAGE_WORDS[s.stage]} hooks are immutable when machine is marked for deletion: the following hooks are new or changed: [`)} + ` +
      `${s.hooks}.filter(h, !${kept('h')}).map(h, '{Name:' + h.name + ' Owner:' + h.owner + '}').join(' ') + ']'`;
    return {
      outcome: 'enforced',
      expression: `!variables.deleting || ${s.hooks}.all(h, ${kept('h')})`,
      // Cut as the webhook cuts one violation (MAX_VIOLATION_BYTES, counted in characters here), under the API
      // server's 5 KiB limit on an evaluated message; built once, and only for a deleting Machine (the API server
      // evaluates every message expression on every request).
      messageExpression: `!variables.deleting ? '' : [${message}].map(m, size(m) > ${MAX} ? m.substring(0, ${MAX - 3}) + '...' : m)[0]`,
      reason: 'Forbidden',
    };
  });
  return {
    variables: [
      {
        name: 'deleting',
        expression: `request.operation == 'UPDATE' && has(object.metadata.deletionTimestamp) && object.metadata.deletionTimestamp != ''`,
      },
    ],
    validations,
  };
}
