// Reads a request body under a byte limit without buffering more than the limit.
import type { IncomingMessage } from 'node:http';

/**
 * 7 MiB, as controller-runtime derives it: the API server caps an object at 3 MiB (etcd's request limit
 * is 1.5 MiB, with room for encoding), an UPDATE carries object and oldObject, and the envelope adds a little.
 */
export const MAX_BODY_BYTES = 7 * 1024 * 1024;

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/**
 * Calls `done` once: with the whole body, or with BodyTooLarge or the stream's error. A callback, not a promise:
 * the answer is then written in the same turn as the body's last chunk, which costs less CPU per request than
 * awaiting a promise (BENCHMARKS.md, measurements behind choices in the code).
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  done: (err: Error | undefined, body?: Buffer) => void,
): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume(); // drain, so the connection can answer
    done(new BodyTooLarge(limit));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  req.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > limit) {
      finished = true;
      chunks.length = 0;
      done(new BodyTooLarge(limit));
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (finished) return;
    finished = true;
    done(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  });
  req.on('error', (err) => {
    if (finished) return;
    finished = true;
    done(err);
  });
}
