// "Did you mean": the nearest known word to a mistyped one, by edit distance, when it is near enough to be the intent.
import { distance } from 'fastest-levenshtein';

/** Levenshtein distance, case-insensitive: a key or kind typed in the wrong case is one edit per letter at most. */
export function editDistance(a: string, b: string): number {
  return distance(a.toLowerCase(), b.toLowerCase());
}

/** The candidate nearest to `word`, if within a third of the longer one's length (at least 2 edits), else none. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d <= Math.max(2, Math.floor(Math.max(word.length, c.length) / 3)) && (best === undefined || d < best.d))
      best = { c, d };
  }
  return best?.c;
}
