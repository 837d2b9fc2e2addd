// owner-references' words, the API server's (without the list it prints): for the TypeScript rule and its CEL.
import { invalidFieldOmitValue } from '../../core/messages/field.js';
import { message } from '../../core/messages/message.js';

/** A second controller reference; each named kind/name. */
export const secondControllerMessage = message<{ first: string; second: string }>((w) =>
  invalidFieldOmitValue('metadata.ownerReferences', [
    'Only one reference can have Controller set to true. Found "true" in references for ',
    w.text('first'),
    ' and ',
    w.text('second'),
  ]),
);
