// Flag parsing helpers shared by commands.
import { AppError } from '../errors.js';

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function wholeNumber(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new AppError('USAGE', `${flag} must be a whole number, got "${value}"`);
  return Number(value);
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go-style durations, as kubectl and Kubernetes flags take them: "90s", "30m", "1h", "1h30m", "500ms". Returns ms. */
export function duration(flag: string, value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (value === '' || parts.map((p) => p[0]).join('') !== value) {
    throw new AppError('USAGE', `${flag} must be a duration such as 90s, 30m, 1h or 1h30m, got "${value}"`);
  }
  return Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * (DURATION_UNITS[p[2] as string] ?? 0), 0));
}
