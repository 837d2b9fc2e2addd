// What a child-resource rule returns: violations already sorted by the rule's own policy (onMissingParent: warn
// makes a warning), before the engine applies the rule's enforcement.
import type { Notice, Violation } from '../types.js';

/** `audit` judges stored objects: no operation to react to, and facts may be absent. */
export type ChildMode = 'admission' | 'audit';

export interface ChildFindings {
  denials: Violation[];
  warnings: Violation[];
  notices: Notice[];
}

export function noFindings(): ChildFindings {
  return { denials: [], warnings: [], notices: [] };
}
