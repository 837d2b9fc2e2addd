// Static admission manifests on a harness control plane: the directory kube-apiserver starts with (empty until a set
// is written), the flags that load it for the binary's release, and writing a set (or none) followed by a wait until
// the API server's own metrics report that set's hash: each reload is observed, never slept through.
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import writeFileAtomic from 'write-file-atomic';
import { manifestDirHash, staticFileText } from '../../src/compilers/deploy/static-files.js';
import { admissionConfiguration, staticSupport, type StaticFile } from '../../src/compilers/native/static.js';
import {
  ADMISSION_CONFIGURATION_FILE,
  STATIC_DIRS,
  STATIC_FEATURE_GATE,
  STATIC_FILE,
} from '../../src/compilers/native/static-layout.js';
import type { ControlPlane } from './control-plane.js';
import { rawRequest } from './http.js';
import { GiveUp, pollUntil } from './processes.js';

const METRIC = 'apiserver_manifest_admission_config_controller';
export const STATIC_PLUGINS = {
  ValidatingAdmissionPolicy: STATIC_DIRS.validating,
  MutatingAdmissionPolicy: STATIC_DIRS.mutating,
} as const;
export type StaticPlugin = keyof typeof STATIC_PLUGINS;
const PLUGINS = Object.keys(STATIC_PLUGINS) as StaticPlugin[];

/** What the API server's metrics say of each plugin's directory. */
export interface StaticMetrics {
  /** The hash of the set in force; '' for an empty directory, undefined when the plugin reports none. */
  hash: Partial<Record<StaticPlugin, string>>;
  reloads: Record<StaticPlugin, { success: number; failure: number }>;
}

/**
 * Creates the plugins' (empty) directories under root and the AdmissionConfiguration pointing at them, and returns the
 * kube-apiserver flags that load it: 1.36 needs the feature gate, an older release cannot (a clear error, not a
 * kube-apiserver that will not start).
 */
export async function prepareStaticAdmission(root: string, kubeApiserver: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(kubeApiserver, ['--version']);
  const release = /v\d+\.\d+\.\d+/.exec(stdout)?.[0];
  if (!release) throw new Error(`${kubeApiserver} --version printed no release: ${stdout.trim()}`);
  let gate: string | undefined;
  try {
    gate = staticSupport(release);
  } catch (err) {
    throw new Error(
      `${err instanceof Error ? err.message : String(err)} (leave the static mode out: HOOKKEEPER_E2E_MODES)`,
      { cause: err },
    );
  }
  for (const dir of Object.values(STATIC_DIRS)) await mkdir(join(root, dir), { recursive: true });
  const config = join(root, ADMISSION_CONFIGURATION_FILE);
  const documents = [admissionConfiguration(root)];
  await writeFile(config, staticFileText({ path: ADMISSION_CONFIGURATION_FILE, documents }));
  return [
    ...(gate === undefined ? [] : [`--feature-gates=${STATIC_FEATURE_GATE}=true`]),
    `--admission-control-config-file=${config}`,
  ];
}

/** A Prometheus text label's value (no escapes occur in these labels' values). */
function label(line: string, name: string): string | undefined {
  return new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1];
}

export function parseStaticMetrics(text: string): StaticMetrics {
  const lines = text.split('\n').filter((l) => l.startsWith(METRIC));
  const out: StaticMetrics = {
    hash: {},
    reloads: {
      ValidatingAdmissionPolicy: { success: 0, failure: 0 },
      MutatingAdmissionPolicy: { success: 0, failure: 0 },
    },
  };
  for (const line of lines) {
    const plugin = label(line, 'plugin') as StaticPlugin | undefined;
    if (plugin === undefined || !PLUGINS.includes(plugin)) continue;
    if (line.startsWith(`${METRIC}_last_config_info{`)) {
      const hash = label(line, 'hash');
      if (hash !== undefined) out.hash[plugin] = hash;
    }
    const status = label(line, 'status');
    if (line.startsWith(`${METRIC}_automatic_reloads_total{`) && (status === 'success' || status === 'failure'))
      out.reloads[plugin][status] = Number(line.trim().split(/\s+/).at(-1)) || 0;
  }
  return out;
}

/** The API server's metrics (read as the harness admin, who may). */
export async function staticMetrics(plane: ControlPlane): Promise<StaticMetrics> {
  const res = await rawRequest({
    url: `${plane.server}/metrics`,
    ca: plane.caPem,
    token: plane.identities.admin.token,
    timeoutMs: 30_000,
  });
  if (res.status !== 200) throw new Error(`GET /metrics: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
  return parseStaticMetrics(res.body);
}

/** One file of a static set as written: its path relative to the root (render --static's), and its text. */
export interface StaticText {
  path: string;
  text: string;
}

/** A rendered file as `render --static` writes it. */
export const staticText = (file: StaticFile): StaticText => ({ path: file.path, text: staticFileText(file) });

/** The directory hash each plugin would report for this set: '' where the set has no file of that plugin. */
export function expectedHashes(files: readonly StaticText[]): Record<StaticPlugin, string> {
  const hashOf = (dir: string): string => {
    const file = files.find((f) => f.path === `${dir}/${STATIC_FILE}`);
    return file ? (manifestDirHash([{ name: STATIC_FILE, content: file.text }]) ?? '') : '';
  };
  return {
    ValidatingAdmissionPolicy: hashOf(STATIC_DIRS.validating),
    MutatingAdmissionPolicy: hashOf(STATIC_DIRS.mutating),
  };
}

/**
 * Puts a set of static files (render's plugin files, other files ignored; none: empty directories) in force on a plane
 * started with staticAdmission: each file written whole (a temporary file, then a rename) or removed, then the API
 * server's metrics polled until both plugins report the set's hash. A reload the API server refuses ends the wait with
 * an error.
 */
export async function applyStaticSet(
  plane: ControlPlane,
  files: readonly StaticText[],
  timeoutMs = 120_000,
): Promise<void> {
  const root = plane.staticAdmissionRoot;
  if (root === undefined) throw new Error(`${plane.label} was not started with static admission manifests`);
  const before = await staticMetrics(plane);
  const expected = expectedHashes(files);
  for (const dir of Object.values(STATIC_PLUGINS)) {
    const target = join(root, dir, STATIC_FILE);
    const file = files.find((f) => f.path === `${dir}/${STATIC_FILE}`);
    if (file) await writeFileAtomic(target, file.text, { mode: 0o644 });
    else await rm(target, { force: true });
  }
  const what = PLUGINS.map((p) => `${p} ${expected[p] || '(empty)'}`).join(', ');
  await pollUntil(
    `the API server to report the static set ${what}`,
    timeoutMs,
    async () => {
      const now = await staticMetrics(plane);
      for (const p of PLUGINS)
        if (now.reloads[p].failure > before.reloads[p].failure)
          throw new GiveUp(`the API server refused the ${p} static files (see its log); it reports ${now.hash[p]}`);
      return PLUGINS.every((p) => now.hash[p] === expected[p]) ? true : undefined;
    },
    200,
  );
}
