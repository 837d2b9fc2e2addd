// single-owner's words, for the TypeScript rule and its CEL.
import { invalidField } from '../../core/messages/field.js';
import { message } from '../../core/messages/message.js';

/** A preTerminate hook whose name a preDrain hook of another owner carries. */
export const crossStageOwnerMessage = message<{ path: string; owner: string; name: string; drainOwner: string }>(
  (w) => [
    invalidField(w.text('path'), w.quoted('owner'), [
      'hook ',
      w.quoted('name'),
      ' is owned by ',
      w.quoted('drainOwner'),
      ' in preDrain; a hook name must carry the same owner in preDrain and preTerminate',
    ]),
  ],
);

/** A reserved hook name with another owner than the policy reserves it for. */
export const reservedNameMessage = message<{ path: string; owner: string; name: string; reservedOwner: string }>(
  (w) => [
    invalidField(w.text('path'), w.quoted('owner'), [
      'hook name ',
      w.quoted('name'),
      ' is reserved for owner ',
      w.quoted('reservedOwner'),
    ]),
  ],
);
