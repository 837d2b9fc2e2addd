// Flag parsing helpers shared by commands.
import { AppError } from '../../errors.js';

/**
 * hookkeeper's one form for a flag error, commander's reworded too (commander-errors.ts): the command's prefix is the
 * caller's, then `<flag>: <what is wrong>; <what works>`.
 */
export function flagError(flag: string, wrong: string, works: string): AppError {
  return new AppError('USAGE', `${flag}: ${wrong}; ${works}`);
}

/** "give a or b", "give one of a, b, c". */
export function giveOneOf(choices: readonly string[]): string {
  return choices.length === 2 ? `give ${choices[0]} or ${choices[1]}` : `give one of ${choices.join(', ')}`;
}

/** A value that is not one of a flag's choices: `-o/--output: "xml" is not an output format; give one of ...`. */
export function notOneOf(flag: string, value: string, what: string, choices: readonly string[]): AppError {
  return flagError(flag, `${JSON.stringify(value)} is not ${what}`, giveOneOf(choices));
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function wholeNumber(flag: string, value: string): number {
  if (!/^\d+$/.test(value))
    throw flagError(flag, `${JSON.stringify(value)} is not a whole number`, 'give digits only, such as 30');
  return Number(value);
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go-style durations, as kubectl and Kubernetes flags take them: "90s", "30m", "1h", "1h30m", "500ms". Returns ms. */
export function duration(flag: string, value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (value === '' || parts.map((p) => p[0]).join('') !== value) {
    throw flagError(flag, `${JSON.stringify(value)} is not a duration`, 'give one such as 90s, 30m, 1h or 1h30m');
  }
  return Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * (DURATION_UNITS[p[2] as string] ?? 0), 0));
}

/** A TCP port to listen on; 0 asks the system for any free one (tests, a second local instance). */
export function portNumber(flag: string, value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 65535))
    throw flagError(flag, `${JSON.stringify(value)} is not a port number`, 'give 0 (any free port) to 65535');
  return n;
}

/** pino's levels, in order. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** A log level from `source` (the flag or variable it came from, named in the error). */
export function logLevel(source: string, value: string): string {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw notOneOf(source, value, 'a log level', LOG_LEVELS);
  return value;
}

/**
 * A Kubernetes version ("1.31", "v1.31.4"). OpenShift 4.N ships Kubernetes 1.(N+13) (4.18 is based on 1.31, as each
 * OpenShift release's notes state), and its version is easily given by mistake: it is named, not taken.
 */
export function kubernetesVersion(flag: string, value: string, minMinor?: number): string {
  const m = /^v?4\.(\d+)(?:\.\d+)?$/.exec(value.trim());
  if (m) {
    const minor = Number(m[1]);
    const k8s = minor + 13;
    const named = `${flag}: ${value} looks like an OpenShift version: OpenShift 4.${minor} ships Kubernetes 1.${k8s}`;
    // Suggest only what the command then accepts.
    if (minMinor !== undefined && k8s < minMinor)
      throw new AppError(
        'USAGE',
        `${named}, older than the 1.${minMinor} this needs (OpenShift 4.${minMinor - 13}); run the webhook instead`,
      );
    throw new AppError('USAGE', `${named}; give that (${flag} 1.${k8s})`);
  }
  return value;
}
