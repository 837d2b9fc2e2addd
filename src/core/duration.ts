// Durations in messages: the two largest units, as people read them.

/** 93784000 -> "1d2h", 7500000 -> "2h5m", 90000 -> "1m30s": the two largest units, for messages. */
export function formatDuration(ms: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  const parts: string[] = [];
  let rest = Math.max(0, Math.floor(ms));
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${unit}`);
    if (parts.length === 2) break;
  }
  const text = parts.filter((p, i) => i === 0 || !p.startsWith('0')).join('');
  return text === '' ? '0s' : text;
}
