// The streams and environment a command runs with: injected so CLI tests can assert output and exit codes.
import type { Readable, Writable } from 'node:stream';

/** The exit codes live with the errors that carry them (src/errors.ts); commands import them from here too. */
export { ExitCode, exitCodeFor } from '../../errors.js';

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

/**
 * Characters that let printed object data move the cursor, recolour or rewrite a terminal's lines, or reorder what a
 * reader sees: C0 controls but tab and newline, DEL, C1 controls (CSI included), the line and paragraph separators
 * and the bidirectional controls.
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Text for a person: each unprintable character shown as its escape (`\u001b`), so it can neither act nor hide. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** write() for text meant for a person (text formats, stderr): object data in it is printed, never obeyed. */
export function writeText(stream: Writable, text: string): void {
  write(stream, printable(text));
}

/**
 * Objects as `kubectl apply -f -` reads them: a v1 List (json), or a multi-document YAML stream with no folded lines
 * (a caBundle or a CEL expression stays one line). yaml is loaded here, by the commands that print, not at start-up.
 */
export async function manifestText(objects: readonly object[], output: 'yaml' | 'json'): Promise<string> {
  if (output === 'json') return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2);
  const { stringify } = await import('yaml');
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}
