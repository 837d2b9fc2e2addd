// What a child-resource rule returns: violations already sorted by the rule's own policy (onMissingParent: warn
// makes a warning), before the engine applies the rule's enforcement.
import type { Notice, ReviewInput, Violation } from '../types.js';
import type { RuleResult } from './context.js';

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

/** The audit judges stored objects; admission and `validate` judge a request. */
export function childMode(input: ReviewInput): ChildMode {
  return input.source === 'audit' ? 'audit' : 'admission';
}

/** A child rule's findings as the engine takes them: its denials under the rule's enforcement, its warnings as they are. */
export function childResult(found: ChildFindings): RuleResult {
  return { violations: found.denials, warnings: found.warnings, notices: found.notices };
}
