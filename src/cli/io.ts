// The streams and environment a command runs with: injected so CLI tests can assert output and exit codes.
import type { Readable, Writable } from 'node:stream';

/** Documented exit codes, shared by every command (README: "Exit codes"). */
export const ExitCode = {
  Ok: 0,
  Violations: 1,
  Usage: 2,
  Cluster: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface CliIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Whether stdout is a terminal (tables and progress) or a pipe (plain lines). */
  isTTY: boolean;
}

export function write(stream: Writable, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}
