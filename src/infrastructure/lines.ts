// Reads a stream as lines without ever holding more than a bounded line: an endless line (stdin, a device, a pipe)
// is skipped and reported, or ends the read, rather than being buffered until the process runs out of memory.
import { Buffer } from 'node:buffer';

export interface Lines {
  /** Each line without its "\n" ("\r" kept); null for a line longer than the limit, whose bytes were dropped. */
  lines: Array<string | null>;
  /** Bytes read, dropped lines included. */
  bytes: number;
}

/**
 * Splits `stream` on "\n" (never inside a UTF-8 sequence), dropping any line longer than `maxLineBytes`; with
 * `stopAtLongLine`, the read ends at the first such line (it is the last entry, null), leaving the rest unread.
 */
export async function readLines(
  stream: NodeJS.ReadableStream,
  maxLineBytes: number,
  options: { stopAtLongLine?: boolean } = {},
): Promise<Lines> {
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
      if (dropping && options.stopAtLongLine) break;
      end();
      from = nl + 1;
    }
    add(buf.subarray(from));
    // Leaving the loop ends the stream's iteration: nothing more is read.
    if (dropping && options.stopAtLongLine) {
      end();
      return { lines, bytes };
    }
  }
  if (size > 0 || dropping) end();
  return { lines, bytes };
}
