// A scratch GitOps repository, for `validate --old-ref -k/--render` tests: a kustomize base whose control-plane
// Machine has no hooks, two overlays that each add the etcd hook with a JSON 6902 patch (as a cluster's overlay does),
// and a Helm chart whose template adds it under a value. Real git; the renders need a real kustomize and helm.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { ETCD, machine } from '../fixtures/openshift.js';
import { findKustomize } from '../helpers/kustomize.js';

/** The base's Machine: no namespace (the overlays give it) and no hooks. */
export function baseMachine(labels: Record<string, string> = {}): string {
  const m = machine({ name: 'master-0' });
  const meta = { ...(m['metadata'] as Record<string, unknown>) };
  delete meta['namespace'];
  meta['labels'] = { ...(meta['labels'] as Record<string, string>), ...labels };
  return YAML.stringify({ ...m, metadata: meta });
}

export const ADD_ETCD_HOOK = YAML.stringify([{ op: 'add', path: '/spec/lifecycleHooks/preDrain', value: [ETCD] }]);
export const REMOVE_HOOKS = YAML.stringify([{ op: 'remove', path: '/spec/lifecycleHooks' }]);

/** An overlay's kustomization: the base in the control plane's namespace, with these JSON 6902 patch files in order. */
export function overlay(patches: readonly string[]): string {
  return YAML.stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: 'openshift-machine-api',
    resources: ['../../base'],
    patches: patches.map((path) => ({ path, target: { kind: 'Machine', name: 'master-0' } })),
  });
}

const CHART_TEMPLATE = `apiVersion: machine.openshift.io/v1beta1
kind: Machine
metadata:
  name: master-0
  namespace: openshift-machine-api
  labels:
    machine.openshift.io/cluster-api-machine-role: master
    machine.openshift.io/cluster-api-machine-type: master
spec:
  lifecycleHooks:
{{- if .Values.etcdHook }}
    preDrain:
      - name: ${ETCD.name}
        owner: ${ETCD.owner}
{{- else }} {}
{{- end }}
  providerSpec: {}
`;

export const FILES: Readonly<Record<string, string>> = {
  'base/kustomization.yaml': 'resources: [masters.yaml]\n',
  'base/masters.yaml': baseMachine(),
  'overlays/prod/kustomization.yaml': overlay(['etcd-hook.yaml']),
  'overlays/prod/etcd-hook.yaml': ADD_ETCD_HOOK,
  'overlays/staging/kustomization.yaml': overlay(['etcd-hook.yaml']),
  'overlays/staging/etcd-hook.yaml': ADD_ETCD_HOOK,
  'charts/machines/Chart.yaml': 'apiVersion: v2\nname: machines\nversion: 0.1.0\n',
  'charts/machines/values.yaml': 'etcdHook: true\n',
  'charts/machines/templates/masters.yaml': CHART_TEMPLATE,
};

export interface GitopsRepo {
  dir: string;
  /** A directory with `kustomize` and `helm` (those found), for the PATH of the CLI under test. */
  bin: string;
  git: (...args: string[]) => string;
  write: (path: string, text: string) => Promise<void>;
  remove: (path: string) => Promise<void>;
  /** A pull request: a branch off main with `change` committed, checked out as CI checks it out. */
  pullRequest: (branch: string, change: () => Promise<void>) => Promise<void>;
  cleanup: () => Promise<void>;
}

/** The real tools, as the CI image has them: $KUSTOMIZE or kustomize, $HELM or helm. */
export function tools(): { kustomize?: string; helm?: string } {
  const k = findKustomize();
  const helm = [process.env['HELM'], 'helm'].find(
    (c) => c && spawnSync(c, ['version', '--short'], { encoding: 'utf8' }).status === 0,
  );
  return {
    ...(k && k[1] === 'build' && k[0] ? { kustomize: k[0] } : {}),
    ...(helm ? { helm } : {}),
  };
}

/** Resolves a command name through PATH to its file, for a symbolic link in `bin`. */
function which(cmd: string): string {
  if (cmd.includes('/')) return cmd;
  return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim();
}

/** Links the kustomize and helm found into `bin`, as `kustomize` and `helm`, for a PATH. */
export async function linkTools(bin: string): Promise<void> {
  const { kustomize, helm } = tools();
  if (kustomize) await symlink(which(kustomize), join(bin, 'kustomize'));
  if (helm) await symlink(which(helm), join(bin, 'helm'));
}

/** `hookkeeper` in `bin`, running this checkout's CLI from source, as an installed one runs dist/. */
export async function hookkeeperShim(bin: string): Promise<void> {
  const tsx = import.meta.resolve('tsx');
  const main = fileURLToPath(new URL('../../src/transports/cli/main.ts', import.meta.url));
  await writeFile(
    join(bin, 'hookkeeper'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(tsx)} ${JSON.stringify(main)} "$@"\n`,
    { mode: 0o755 },
  );
}

export async function gitopsRepo(): Promise<GitopsRepo> {
  const root = await mkdtemp(join(tmpdir(), 'hookkeeper-gitops-'));
  const dir = join(root, 'repo');
  const bin = join(root, 'bin');
  await mkdir(dir);
  await mkdir(bin);
  await linkTools(bin);
  const git = (...args: string[]): string =>
    execFileSync(
      'git',
      ['-c', 'user.email=ci@example.com', '-c', 'user.name=CI', '-c', 'init.defaultBranch=main', ...args],
      { cwd: dir, encoding: 'utf8' },
    );
  const write = async (path: string, text: string): Promise<void> => {
    await mkdir(join(dir, dirname(path)), { recursive: true });
    await writeFile(join(dir, path), text);
  };
  git('init', '-q');
  for (const [path, text] of Object.entries(FILES)) await write(path, text);
  git('add', '-A');
  git('commit', '-q', '-m', 'main');
  return {
    dir,
    bin,
    git,
    write,
    remove: (path) => rm(join(dir, path)),
    pullRequest: async (branch, change) => {
      git('checkout', '-q', '-B', branch, 'main');
      await change();
      git('add', '-A');
      git('commit', '-q', '-m', branch);
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
