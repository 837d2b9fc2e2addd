// template-hook-removed's words, for the TypeScript rule and its CEL: what a hook gone from a template means for the
// Machines the set makes from then on.
import { message } from '../../core/messages/message.js';

/** A hook of a template that an UPDATE removes or re-owns, and the kind of the set whose template it is. */
export type TemplateHook = {
  kind: string;
  stage: string;
  name: string;
  owner: string;
  ownerless: boolean;
  /** Still there with another owner, not removed. */
  reowned: boolean;
};

/** What it means first: a warning is cut to 120 characters, so the consequence leads and the edit follows. */
export const templateHookRemovedMessage = message<TemplateHook>((w) => [
  'every Machine this ',
  w.text('kind'),
  ' makes from now on lacks ',
  w.text('stage'),
  ' hook ',
  w.quoted('name'),
  w.when('ownerless', '', [' of ', w.quoted('owner')]),
  ': ',
  w.when('reowned', 're-owned in', 'removed from'),
  ' its template',
]);
