// controller-finalizer's words, for the TypeScript rule and its CEL: the denial of a finalizer removal held for the
// Machine's controller, and break-glass's warning.
import { forbiddenField } from '../../core/messages/field.js';
import { message, words } from '../../core/messages/message.js';

/** Where the violation points. */
export const FINALIZERS_PATH = 'metadata.finalizers';

/** What a denial names: who tried, the controller's finalizer and identities, and break-glass. */
export type HeldFinalizer = { user: string; finalizer: string; controllers: string; breakGlass: string };

/** The denial: only the controller ends a hook-carrying Machine's deletion. */
export const heldFinalizerMessage = message<HeldFinalizer>((w) =>
  forbiddenField(FINALIZERS_PATH, [
    w.text('user'),
    ' may not remove finalizer ',
    w.text('finalizer'),
    " or a deleting machine's last finalizer while the machine carries lifecycle hooks: only its controller (",
    w.text('controllers'),
    ') does, when its deletion flow is done; ',
    w.text('breakGlass'),
  ]),
);

/** Break-glass ended a hook-carrying Machine's deletion flow: allowed, warned and audited. */
export const breakGlassFinalizerWarning = message<{ user: string }>((w) =>
  words('break-glass: ', w.text('user'), ' may remove the finalizers of a machine carrying lifecycle hooks; audited'),
);

/** What the controllers' identities read as when the policy names none. */
export const NO_CONTROLLER = 'none configured';
