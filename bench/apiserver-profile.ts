// Where figure 5's time goes inside kube-apiserver: a CPU profile from its /debug/pprof (on by default, --profiling)
// while a variant's writes run, and `go tool pprof`'s account of the admission plugins' share per write.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import type { ControlPlane } from '../testing/control-plane/control-plane.js';
import { round } from './measure.js';

/** The admission plugins' code: webhooks, ValidatingAdmissionPolicy and MutatingAdmissionPolicy dispatch. */
export const ADMISSION_FOCUS = 'k8s.io/apiserver/pkg/admission/plugin/(policy|webhook)';
/** Loading static manifests (validation and CEL compilation on a reload) is not a write's cost. */
const IGNORE = 'admission/plugin/policy/manifest';

export interface ApiserverProfile {
  file: string;
  writes: number;
  /** CPU the admission plugins spent (cumulative, focused) over the profile, per write. */
  admissionCpuMsPerWrite: number;
  /** CPU of the whole API server over the profile, per write. */
  totalCpuMsPerWrite: number;
  /** The focused functions with the most cumulative CPU, as pprof names them, ms per write. */
  top: Array<{ fn: string; cumMsPerWrite: number }>;
}

/** GET /debug/pprof/profile?seconds=N as the harness's admin: the profile's bytes (gzipped protobuf). */
export function fetchProfile(plane: ControlPlane, seconds: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${plane.server}/debug/pprof/profile?seconds=${seconds}`,
      {
        ca: plane.caPem,
        headers: { authorization: `Bearer ${plane.identities.admin.token}` },
        timeout: (seconds + 30) * 1000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          if (res.statusCode !== 200)
            reject(new Error(`pprof: HTTP ${res.statusCode}: ${body.toString().slice(0, 300)}`));
          else resolve(body);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('pprof: no answer')));
    req.on('error', reject);
    req.end();
  });
}

/** "Showing nodes accounting for 1.23s, 45% of 2.7s total" and `-top -cum` rows, read from go tool pprof. */
function pprofTop(
  file: string,
  focus: string | undefined,
): { totalMs: number; rows: Array<{ fn: string; cumMs: number }> } {
  const args = [
    'tool',
    'pprof',
    '-top',
    '-cum',
    '-unit=ms',
    // Every node, so "accounting for" is all the focused samples, not the top rows' share.
    '-nodecount=100000',
    ...(focus ? [`-focus=${focus}`, `-ignore=${IGNORE}`] : []),
    file,
  ];
  const out = execFileSync('go', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // pprof writes a zero without its unit ("accounting for 0, 0% of 3400ms total").
  const header = /Showing nodes accounting for ([\d.]+)(?:ms)?, [\d.]+% of ([\d.]+)(?:ms)? total/.exec(out);
  const rows = out
    .split('\n')
    .map((l) => /^\s*[\d.]+ms\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)ms\s+[\d.]+%\s+(.+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ cumMs: Number(m[1]), fn: (m[2] ?? '').trim() }));
  // Focused, the header's first figure is what the focus accounts for; unfocused, the second is the whole profile.
  return { totalMs: Number(focus ? header?.[1] : header?.[2]), rows };
}

/** Profiles `seconds` of the API server while `drive` writes; `drive` returns how many writes it sent. */
export async function profileWhile(
  plane: ControlPlane,
  seconds: number,
  file: string,
  drive: (stop: () => boolean) => Promise<number>,
): Promise<ApiserverProfile> {
  let done = false;
  const profile = fetchProfile(plane, seconds).finally(() => {
    done = true;
  });
  const writes = await drive(() => done);
  writeFileSync(file, await profile);
  const all = pprofTop(file, undefined);
  const focused = pprofTop(file, ADMISSION_FOCUS);
  const per = (ms: number): number => round(ms / Math.max(1, writes), 3);
  return {
    file,
    writes,
    admissionCpuMsPerWrite: per(focused.totalMs),
    totalCpuMsPerWrite: per(all.totalMs),
    top: focused.rows
      .filter((r) => r.fn.includes('admission/plugin') || r.fn.includes('cel'))
      .slice(0, 12)
      .map((r) => ({ fn: r.fn, cumMsPerWrite: per(r.cumMs) })),
  };
}
