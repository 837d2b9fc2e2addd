// A way native mode decides or speaks differently from the webhook, as a value: the rule it belongs to declares it
// (NativeForm.divergences), src/compilers/native/notes.ts adds what no rule owns, render prints the sentences, and the e2e corpus
// and the differential fuzzer excuse a difference only where a divergence covers that very request.
import { carrierFor, wellFormed } from './carriers.js';
import type { ReviewInput, RuleId } from './types.js';

export interface Divergence {
  /**
   * The rule whose decision or words differ; 'messages' for what the API server does to every rule's words;
   * 'namespaces' for what the registrations, not the rules, leave unguarded.
   */
  rule: RuleId | 'messages' | 'namespaces';
  /** One sentence; render prints `<rule>: <text>`. */
  text: string;
  /**
   * The requests on which native mode's verdict may differ from the webhook's (only where `rule` decides them);
   * absent: only the words differ (messages, warnings, audit keys), never the verdict.
   */
  verdictDiffers?: (input: ReviewInput) => boolean;
  /**
   * For a divergence of words only: the requests on which native mode's denial or warnings may be worded otherwise
   * than the webhook's (only where `rule` decides them); absent: words that differ on every request, or none.
   */
  wordsDiffer?: (input: ReviewInput) => boolean;
}

/** The well-formed hooks of an object, if its kind carries hooks. */
function hooksOf(input: ReviewInput, which: 'object' | 'oldObject') {
  const carrier = carrierFor(input.kind);
  return carrier ? wellFormed(carrier.read(input[which]).hooks) : [];
}

/**
 * A stage of the new object, or of the stored one on UPDATE, naming one hook twice: CEL indexes both by identity
 * (Hook.id), so a list with a name twice fails the index. Annotation keys are unique, so never on Cluster API.
 */
export function namesAHookTwice(input: ReviewInput): boolean {
  const twice = (hooks: ReturnType<typeof hooksOf>): boolean => {
    const seen = new Set<string>();
    for (const h of hooks) {
      const key = `${h.stage}\u0000${h.id}`;
      if (seen.has(key)) return true;
      seen.add(key);
    }
    return false;
  };
  return twice(hooksOf(input, 'object')) || (input.operation === 'UPDATE' && twice(hooksOf(input, 'oldObject')));
}
