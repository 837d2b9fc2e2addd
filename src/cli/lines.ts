// Reads a stream as lines without ever holding more than a bounded line: an endless line on stdin is skipped and
// reported, not buffered until the process runs out of memory.
import { Buffer } from 'node:buffer';

export interface Lines {
  /** Each line without its "\n" ("\r" kept); null for a line longer than the limit, whose bytes were dropped. */
  lines: Array<string | null>;
  /** Bytes read, dropped lines included. */
  bytes: number;
}

/** Splits `stream` on "\n" (never inside a UTF-8 sequence), dropping any line longer than `maxLineBytes`. */
export async function readLines(stream: NodeJS.ReadableStream, maxLineBytes: number): Promise<Lines> {
  const lines: Array<string | null> = [];
  let parts: Buffer[] = [];
  let size = 0;
  let dropping = false;
  let bytes = 0;
  const add = (part: Buffer): void => {
    if (dropping) return;
    size += part.length;
    if (size > maxLineBytes) {
      dropping = true;
      parts = [];
    } else if (part.length > 0) parts.push(part);
  };
  const end = (): void => {
    lines.push(dropping ? null : Buffer.concat(parts).toString('utf8'));
    parts = [];
    size = 0;
    dropping = false;
  };
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += buf.length;
    let from = 0;
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, from)) {
      add(buf.subarray(from, nl));
      end();
      from = nl + 1;
    }
    add(buf.subarray(from));
  }
  if (size > 0 || dropping) end();
  return { lines, bytes };
}
