// Polls files for content changes. Polling, not fs.watch: Kubernetes updates mounted Secrets and ConfigMaps
// by swapping a "..data" symlink, which inotify-based watches on the file itself miss.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface FileWatch {
  stop(): void;
}

async function fingerprint(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const f of files) {
    try {
      hash.update(await readFile(f));
    } catch (err) {
      hash.update(`missing:${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    hash.update('\u0000');
  }
  return hash.digest('hex');
}

/** Calls onChange (never concurrently) whenever the combined content of `files` changes. */
export async function watchFiles(files: readonly string[], intervalMs: number, onChange: () => Promise<void>): Promise<FileWatch> {
  let last = await fingerprint(files);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      try {
        const now = await fingerprint(files);
        if (now !== last) {
          last = now;
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
