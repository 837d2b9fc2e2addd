// Polls files for content changes. Polling, not fs.watch: Kubernetes updates mounted Secrets and ConfigMaps
// by swapping a "..data" symlink, which inotify-based watches on the file itself miss.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface FileWatch {
  stop(): void;
}

/** How the files are read; tests pass one that swaps content between two reads. */
export type ReadFile = (file: string) => Promise<Buffer>;

async function fingerprint(files: readonly string[], read: ReadFile): Promise<string> {
  const hash = createHash('sha256');
  for (const f of files) {
    try {
      hash.update(await read(f));
    } catch (err) {
      hash.update(`missing:${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    hash.update('\u0000');
  }
  return hash.digest('hex');
}

/**
 * Calls onChange (never concurrently) whenever the combined content of `files` changes. The files are read one
 * after another, so a swap between two reads shows a mix of old and new (an old certificate with a new key): a
 * change counts only when a second read agrees with the first, and a torn read waits for the next poll.
 */
export async function watchFiles(files: readonly string[], intervalMs: number, onChange: () => Promise<void>, read: ReadFile = readFile): Promise<FileWatch> {
  let last = await fingerprint(files, read);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      try {
        const seen = await fingerprint(files, read);
        if (seen !== last && (await fingerprint(files, read)) === seen) {
          last = seen;
          await onChange();
        }
      } finally {
        busy = false;
      }
    })();
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
