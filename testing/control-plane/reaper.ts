// Kills the harness's process groups when the test process dies without tearing them down (SIGKILL, Ctrl-C, a
// crash, a runner timeout), then removes their temp dirs: it learns both on stdin, which closes however its
// parent ends. Lines: "+PGID" / "-PGID" (start / stop watching a group), "dPATH" / "uPATH" (a dir to remove / not).
import { rmSync } from 'node:fs';

const groups = new Set<number>();
const dirs = new Set<string>();
let pending = '';

function alive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(group: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-group, sig);
  } catch {
    // already gone
  }
}

async function waitGone(ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ([...groups].some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

async function reap(): Promise<void> {
  for (const g of groups) signal(g, 'SIGTERM');
  await waitGone(5_000);
  for (const g of groups) if (alive(g)) signal(g, 'SIGKILL');
  await waitGone(2_000);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  process.exit(0);
}

// Detached into its own session, but a stray signal must not stop it before it has done its one job.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => undefined);

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const arg = line.slice(1);
    const group = Number(arg);
    const isGroup = Number.isInteger(group) && group > 1;
    switch (line[0]) {
      case '+':
        if (isGroup) groups.add(group);
        break;
      case '-':
        groups.delete(group);
        break;
      case 'd':
        dirs.add(arg);
        break;
      case 'u':
        dirs.delete(arg);
        break;
    }
  }
});
process.stdin.on('end', () => void reap());
process.stdin.on('error', () => void reap());
