// Small measuring helpers shared by the figures: medians, and per-operation time of a function in process.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Keeps results reachable so the optimiser cannot drop the work being timed. */
let sink: unknown;
export function keep(value: unknown): void {
  sink = value;
}
export function sinkValue(): unknown {
  return sink;
}

/** Microseconds per call of each function, sampled in turns (A B C, A B C, ...) so drift on a shared machine hits all alike. */
export function microsecondsPerCall(
  fns: Readonly<Record<string, () => unknown>>,
  options: { samples?: number; sampleMs?: number } = {},
): Record<string, number> {
  const samples = options.samples ?? 9;
  const sampleMs = options.sampleMs ?? 150;
  const names = Object.keys(fns);
  const iterations: Record<string, number> = {};
  // Warm up (JIT) and size each sample to about sampleMs.
  for (const name of names) {
    const fn = fns[name] as () => unknown;
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < 300) {
      keep(fn());
      n++;
    }
    iterations[name] = Math.max(1, Math.round((n * sampleMs) / 300));
  }
  const results: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let s = 0; s < samples; s++) {
    for (const name of names) {
      const fn = fns[name] as () => unknown;
      const n = iterations[name] as number;
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) keep(fn());
      results[name]?.push(Number(process.hrtime.bigint() - start) / n / 1000);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(results[n] ?? [])]));
}
