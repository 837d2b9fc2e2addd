// The words of the migration's twin check (src/core/migration.ts): a copy of a Machine created without a hook its
// twin carries, refused or, for break-glass, warned. The webhook alone says them: native mode cannot read the twin
// (src/compilers/native/notes.ts).
import { forbiddenField } from '../../core/messages/field.js';
import { message, words } from '../../core/messages/message.js';

/** Where the violation points: the new copy's name (the hook is missing, so no path of it exists). */
export const TWIN_PATH = 'metadata.name';

/** One hook of the twin the new copy leaves out, and who created it. */
export type TwinHookLeftOut = {
  user: string;
  kind: string;
  name: string;
  twin: string;
  stage: string;
  hook: string;
  owner: string;
  breakGlass: string;
};

/** Who may not create which copy: the head of both denials. */
const mayNotCreate = message<{ user: string; kind: string; name: string }>((w) => [
  w.quoted('user'),
  ' may not create ',
  w.text('kind'),
  ' ',
  w.quoted('name'),
]);

/** The denial: a copy without the twin's hook could later pass as the authoritative copy the owner emptied. */
export const twinHookLeftOutMessage = message<TwinHookLeftOut>((w) =>
  forbiddenField(TWIN_PATH, [
    mayNotCreate,
    ' without hook ',
    w.quoted('hook'),
    ' (',
    w.text('stage'),
    ', owner ',
    w.quoted('owner'),
    ') that its migration twin ',
    w.text('twin'),
    " carries: only the hook's owner, the migration's synchronizer or a machine controller makes such a copy, since the synchronizer would read it as the owner's removal; create it with the hook, or ",
    w.text('breakGlass'),
  ]),
);

/** The twin could not be read: nothing shows which hooks the new copy must carry. */
export const twinUnreadMessage = message<{ user: string; kind: string; name: string; twin: string; reason: string }>(
  (w) =>
    forbiddenField(TWIN_PATH, [
      mayNotCreate,
      ' now: its migration twin ',
      w.text('twin'),
      ' could not be read (',
      w.text('reason'),
      "), so hookkeeper cannot tell whether the copy leaves out the twin's hooks; retry",
    ]),
);

/** Break-glass made a copy without its twin's hook: allowed, warned and audited. */
export const breakGlassTwinWarning = message<{ user: string; name: string; hook: string; owner: string }>((w) =>
  words(
    'break-glass: ',
    w.text('user'),
    ' creates ',
    w.quoted('name'),
    ' without hook ',
    w.quoted('hook'),
    ' of owner ',
    w.quoted('owner'),
    ' that its migration twin carries; audited',
  ),
);
