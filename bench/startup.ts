// Figure 6: time from spawn to the first 200 from /readyz, and resident memory once idle, against the floor's.
import { median, round } from './measure.js';
import { startProcess, type ServerKind, type Tls } from './servers.js';

export interface StartupRow {
  kind: ServerKind;
  command: string;
  startupMs: number[];
  medianStartupMs: number;
  idleRssMiB: number;
  /** Median start-up / the floor's. */
  ratio: number;
}

const KINDS: readonly ServerKind[] = ['floor', 'webhook', 'webhook-tsx'];

export async function startupFigure(
  options: { repeats: number; settleMs: number; cpu?: number },
  tls: Tls,
  floorFile: string,
  dir: string,
): Promise<StartupRow[]> {
  const times = new Map<ServerKind, number[]>(KINDS.map((k) => [k, []]));
  const rss = new Map<ServerKind, number[]>(KINDS.map((k) => [k, []]));
  const commands = new Map<ServerKind, string>();
  for (let r = 0; r < options.repeats; r++) {
    // In turns, so a busy moment on a shared machine does not land on one kind only.
    for (const kind of KINDS) {
      const p = await startProcess(
        { kind, ...(options.cpu === undefined ? {} : { cpu: options.cpu }) },
        tls,
        floorFile,
        dir,
      );
      try {
        times.get(kind)?.push(round(p.startupMs, 0));
        commands.set(kind, p.command);
        // Idle means after start-up garbage has had a chance to go: a short settle, no requests.
        await new Promise((resolve) => setTimeout(resolve, options.settleMs));
        rss.get(kind)?.push(p.memory().rssMiB);
      } finally {
        await p.stop();
      }
    }
  }
  const floorMs = median(times.get('floor') ?? []);
  return KINDS.map((kind) => {
    const t = times.get(kind) ?? [];
    return {
      kind,
      command: commands.get(kind) ?? '',
      startupMs: t,
      medianStartupMs: round(median(t), 0),
      idleRssMiB: round(median(rss.get(kind) ?? []), 1),
      ratio: round(median(t) / floorMs, 2),
    };
  });
}
