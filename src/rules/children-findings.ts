// What a child-resource rule returns: violations already sorted by the rule's own policy (onMissingParent: warn
// makes a warning), before the engine applies the rule's enforcement.
import type { Notice, ReviewInput, Violation } from '../core/types.js';
import type { RuleResult } from './context.js';

/** `audit` judges stored objects: no operation to react to, and facts may be absent. */
export type ChildMode = 'admission' | 'audit';

export interface ChildFindings extends RuleResult {
  denials: Violation[];
  /** The same list as `denials`, under the name the engine reads (so no result is copied per rule). */
  violations: Violation[];
  warnings: Violation[];
  notices: Notice[];
}

export function noFindings(): ChildFindings {
  const denials: Violation[] = [];
  return { denials, violations: denials, warnings: [], notices: [] };
}

/** The audit judges stored objects; admission and `validate` judge a request. */
export function childMode(input: ReviewInput): ChildMode {
  return input.source === 'audit' ? 'audit' : 'admission';
}
