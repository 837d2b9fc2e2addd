// The streams and environment a command runs with: injected so CLI tests can assert output and exit codes.
import type { Readable, Writable } from 'node:stream';

/** The exit codes live with the errors that carry them (src/errors.ts); commands import them from here too. */
export { ExitCode, exitCodeFor } from '../errors.js';

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
