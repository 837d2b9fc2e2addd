// Polls files for content changes. Polling, not fs.watch: Kubernetes updates mounted Secrets and ConfigMaps
// by swapping a "..data" symlink, which inotify-based watches on the file itself miss.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface FileWatch {
  stop(): void;
}

/** How the files are read; tests pass one that swaps content between two reads. */
export type ReadFile = (file: string) => Promise<Buffer>;

/** What one pass read of each file: its content, or the error reading it gave. */
type Snapshot = ReadonlyMap<string, Buffer | Error>;

async function snapshot(files: readonly string[], read: ReadFile): Promise<{ snap: Snapshot; fingerprint: string }> {
  const hash = createHash('sha256');
  const snap = new Map<string, Buffer | Error>();
  for (const f of files) {
    try {
      const content = await read(f);
      snap.set(f, content);
      hash.update(content);
    } catch (err) {
      snap.set(f, err as Error);
      hash.update(`missing:${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    hash.update('\u0000');
  }
  return { snap, fingerprint: hash.digest('hex') };
}

/** A ReadFile that answers from a snapshot: the content read then, or that read's error. */
function fromSnapshot(snap: Snapshot): ReadFile {
  return (file) => {
    const got = snap.get(file);
    if (got === undefined) return Promise.reject(new Error(`${file} is not watched`));
    return got instanceof Error ? Promise.reject(got) : Promise.resolve(got);
  };
}

/** Content that two reads in a row agreed on, to load from, and its fingerprint, for the watch to start from. */
export interface Settled {
  read: ReadFile;
  fingerprint: string;
}

/**
 * The start-up read: the files are read until two reads in a row agree (at most `attempts` reads), so start-up is
 * not half-loaded either; files that never settle give the last read, which the loader then checks.
 */
export async function readSettled(files: readonly string[], read: ReadFile = readFile, attempts = 5): Promise<Settled> {
  let seen = await snapshot(files, read);
  for (let i = 1; i < attempts; i++) {
    const again = await snapshot(files, read);
    if (again.fingerprint === seen.fingerprint) break;
    seen = again;
  }
  return { read: fromSnapshot(seen.snap), fingerprint: seen.fingerprint };
}

/**
 * Calls onChange (never concurrently) whenever the combined content of `files` changes. The files are read one
 * after another, so a swap between two reads shows a mix of old and new (an old certificate with a new key), and a
 * file rewritten in place can be caught half-written: a change counts only when a second read agrees with the
 * first, and a torn read waits for the next poll. onChange gets exactly what the agreeing reads saw, as a ReadFile
 * to load from, so a write that starts after the reads agreed is not half-loaded by reading the file a third time.
 * A handler that answers 'retry' is called again at the next poll while the content stays the same. `since`: the
 * fingerprint of what is in use (readSettled's), so a change between that load and this call is not missed.
 */
export async function watchFiles(
  files: readonly string[],
  intervalMs: number,
  onChange: (agreed: ReadFile) => Promise<void | 'retry'>,
  read: ReadFile = readFile,
  since?: string,
): Promise<FileWatch> {
  let last = since ?? (await snapshot(files, read)).fingerprint;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      try {
        const seen = await snapshot(files, read);
        if (seen.fingerprint !== last && (await snapshot(files, read)).fingerprint === seen.fingerprint) {
          // 'retry': content that may be accepted later (a certificate not valid yet) is offered again next poll.
          if ((await onChange(fromSnapshot(seen.snap))) !== 'retry') last = seen.fingerprint;
        }
      } finally {
        busy = false;
      }
    })();
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
