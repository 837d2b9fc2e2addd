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

/**
 * Objects as `kubectl apply -f -` reads them: a v1 List (json), or a multi-document YAML stream with no folded lines
 * (a caBundle or a CEL expression stays one line). yaml is loaded here, by the commands that print, not at start-up.
 */
export async function manifestText(objects: readonly object[], output: 'yaml' | 'json'): Promise<string> {
  if (output === 'json') return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2);
  const { stringify } = await import('yaml');
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}
