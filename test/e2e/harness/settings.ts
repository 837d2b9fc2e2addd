// The e2e suite's knobs, read from the environment in this one place and handed to the harness as values.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMISSION_MODES, type AdmissionMode } from './admission-modes.js';

export interface E2ESettings {
  /** The repository root (holds package.json, scripts/, src/). */
  repoRoot: string;
  /** A directory holding etcd and kube-apiserver; unset: run scripts/build-control-plane.sh. */
  binDir: string | undefined;
  /** Upstream CRDs (byte-for-byte copies), next to the repo unless overridden. */
  sharedCrdDir: string;
  /** CI must exercise the upstream CRDs: a missing copy fails instead of skipping. */
  ci: boolean;
  /** Keep the temp dir (certs, logs, etcd data) after a passing run too. */
  keep: boolean;
  /** The admission modes the Machine groups run in (all three unless narrowed, e.g. to iterate on one). */
  modes: readonly AdmissionMode[];
}

function readModes(value: string | undefined): readonly AdmissionMode[] {
  if (!value) return ADMISSION_MODES;
  const modes = value.split(',').map((m) => m.trim());
  for (const m of modes)
    if (!(ADMISSION_MODES as readonly string[]).includes(m))
      throw new Error(`HOOKKEEPER_E2E_MODES: unknown mode "${m}" (modes: ${ADMISSION_MODES.join(', ')})`);
  return modes as AdmissionMode[];
}

function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(resolve(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): E2ESettings {
  const repoRoot = findRepoRoot();
  return {
    repoRoot,
    binDir: env['HOOKKEEPER_E2E_BIN_DIR'] || undefined,
    sharedCrdDir: resolve(repoRoot, env['HOOKKEEPER_E2E_SHARED_CRDS'] || '../shared/crds'),
    ci: env['CI'] === 'true',
    keep: env['HOOKKEEPER_E2E_KEEP'] === '1',
    modes: readModes(env['HOOKKEEPER_E2E_MODES']),
  };
}
