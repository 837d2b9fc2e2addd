// The control plane's knobs, read from the environment in this one place and handed to the harness as values.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ControlPlaneSettings {
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

export function readControlPlaneSettings(env: NodeJS.ProcessEnv = process.env): ControlPlaneSettings {
  const repoRoot = findRepoRoot();
  return {
    repoRoot,
    binDir: env['HOOKKEEPER_E2E_BIN_DIR'] || undefined,
    sharedCrdDir: resolve(repoRoot, env['HOOKKEEPER_E2E_SHARED_CRDS'] || '../shared/crds'),
    ci: env['CI'] === 'true',
    keep: env['HOOKKEEPER_E2E_KEEP'] === '1',
  };
}
