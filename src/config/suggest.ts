// "Did you mean": the nearest known word to a mistyped one, by edit distance, when it is near enough to be the intent.

/** Levenshtein distance, case-insensitive: a key or kind typed in the wrong case is one edit per letter at most. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++)
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (x[i - 1] === y[j - 1] ? 0 : 1),
      );
    prev = row;
  }
  return prev[y.length] ?? 0;
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
