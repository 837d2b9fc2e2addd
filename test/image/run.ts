// Starts an unpacked image's root filesystem as a container runtime would under a restricted pod securityContext,
// with util-linux only (no docker or podman here): own mount, PID and network namespaces, the root filesystem
// read-only, the given volumes bind-mounted, the image's user, no capabilities, no_new_privs, the image's Env only.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnManaged } from '../../testing/control-plane/processes.js';
import type { ImageConfig } from './oci.js';

export interface Volume {
  hostPath: string;
  mountPath: string;
  readOnly: boolean;
}

export interface Container {
  /** Host PID of the container's first process (PID 1 inside). */
  pid: number;
  output: () => string;
  exited: Promise<number | null>;
  /** HTTPS request from inside the container's network namespace: [status, body]. */
  request: (url: string, options: { caFile: string; jsonFile?: string }) => [number, string];
  kill: () => Promise<void>;
}

// Runs as root in fresh namespaces, then execs (setpriv -> unshare --root) into the image's entrypoint. The chroot
// and the change of user happen in that last unshare, which keeps only the three capabilities it needs for them;
// the switch to a non-root uid clears even those before the entrypoint runs.
const SETUP = String.raw`
set -euo pipefail
R=$1 WD=$2 U=$3 G=$4 N=$5; shift 5
envs=("${'$'}{@:1:N}"); shift "$N"
mount --make-rprivate /
mount --bind "$R" "$R"
mount -t proc -o nosuid,nodev,noexec proc "$R/proc"
mount -t tmpfs -o mode=755,size=64k,nosuid tmpfs "$R/dev"
for d in null zero full random urandom tty; do touch "$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"; done
while IFS=$'\t' read -r src dst mode; do
  [ -n "$src" ] || continue
  mount --bind "$src" "$R$dst"
  if [ "$mode" = ro ]; then mount -o remount,bind,ro "$R$dst"; fi
done <<< "$HK_VOLUMES"
mount -o remount,bind,ro "$R"
ip link set lo up
exec env -i "${'$'}{envs[@]}" "$(command -v setpriv)" --no-new-privs --inh-caps=-all --bounding-set=-all,+sys_chroot,+setuid,+setgid -- \
  "$(command -v unshare)" --root="$R" --wd="$WD" --setgid="$G" --setuid="$U" -- "$@"
`;

/** The image's numeric user and group ("65532:65532", or "65532" with the group from the image's /etc/passwd). */
export function imageUser(config: ImageConfig, rootfs: string): { uid: number; gid: number } {
  const m = /^(\d+)(?::(\d+))?$/.exec(config.User ?? '');
  if (!m?.[1]) throw new Error(`image user ${JSON.stringify(config.User)} is not numeric`);
  const uid = Number(m[1]);
  if (m[2] !== undefined) return { uid, gid: Number(m[2]) };
  const line = readFileSync(join(rootfs, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((l) => l.split(':')[2] === m[1]);
  return { uid, gid: Number(line?.split(':')[3] ?? uid) };
}

/** Tools the runner needs, and root; the missing ones, named. */
export function missingTools(): string[] {
  const missing = ['unshare', 'setpriv', 'nsenter', 'mount', 'ip', 'curl', 'tar'].filter(
    (t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0,
  );
  if (process.getuid?.() !== 0) missing.push('root');
  return missing;
}

interface ContainerOptions {
  rootfs: string;
  config: ImageConfig;
  argv: string[];
  volumes: Volume[];
  logFile: string;
}

function spawnContainer(opts: ContainerOptions): ReturnType<typeof spawnManaged> {
  const { uid, gid } = imageUser(opts.config, opts.rootfs);
  // The runtime creates mount points, as containerd does for volumes; the root is still writable at this point.
  for (const dir of ['proc', 'dev', ...opts.volumes.map((v) => v.mountPath.replace(/^\//, ''))])
    mkdirSync(join(opts.rootfs, dir), { recursive: true });
  const env = opts.config.Env ?? [];
  // The control-plane harness's process management: its own process group (the container's processes stay in it
  // through unshare, chroot and the change of user), killed at exit or by the reaper if the test process dies.
  return spawnManaged(
    'container',
    'unshare',
    [
      '--mount',
      '--net',
      '--pid',
      '--fork',
      '--kill-child',
      '--',
      'bash',
      '-c',
      SETUP,
      'setup',
      opts.rootfs,
      opts.config.WorkingDir || '/',
      String(uid),
      String(gid),
      String(env.length),
      ...env,
      ...opts.argv,
    ],
    {
      logFile: opts.logFile,
      env: {
        PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        HK_VOLUMES: opts.volumes.map((v) => `${v.hostPath}\t${v.mountPath}\t${v.readOnly ? 'ro' : 'rw'}`).join('\n'),
      },
    },
  );
}

/** Runs a command in the image to its end, as `podman run --rm IMAGE ARGS` does: its exit code and output. */
export async function runContainer(opts: ContainerOptions): Promise<{ code: number | null; output: string }> {
  const managed = spawnContainer(opts);
  const { code } = await managed.exited;
  return { code, output: readFileSync(opts.logFile, 'utf8') };
}

export async function startContainer(opts: ContainerOptions): Promise<Container> {
  const managed = spawnContainer(opts);
  const logFile = opts.logFile;
  const output = (): string => readFileSync(logFile, 'utf8');
  const exited = managed.exited.then((e) => e.code);
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const outer = managed.pid;
  const entrypoint = join(opts.rootfs, opts.argv[0] ?? '');
  // The container's first process is unshare's only child; it is ours once it has exec'd the entrypoint.
  let pid: number | undefined;
  for (let i = 0; i < 200 && !done && pid === undefined; i++) {
    const children = (() => {
      try {
        return readFileSync(`/proc/${outer}/task/${outer}/children`, 'utf8').trim();
      } catch {
        return '';
      }
    })();
    const candidate = Number(children.split(' ')[0]);
    if (candidate > 0) {
      try {
        if (readlinkSync(`/proc/${candidate}/exe`) === entrypoint) pid = candidate;
      } catch {
        /* exec in progress */
      }
    }
    if (pid === undefined) await sleep(50);
  }
  if (pid === undefined) {
    await managed.stop(0);
    throw new Error(`the container did not exec ${opts.argv[0]}:\n${output()}`);
  }
  const netns = `/proc/${pid}/ns/net`;
  return {
    pid,
    output,
    exited,
    request: (url, { caFile, jsonFile }) => {
      if (!existsSync(netns)) throw new Error(`container exited:\n${output()}`);
      // A service name resolves to the container's loopback, as cluster DNS resolves it to the pod.
      const { hostname, port } = new URL(url);
      const resolve = /^[\d.]+$/.test(hostname) ? [] : ['--resolve', `${hostname}:${port}:127.0.0.1`];
      const out = execFileSync(
        'nsenter',
        [
          `--net=${netns}`,
          '--',
          'curl',
          '-sS',
          '--max-time',
          '5',
          '--cacert',
          caFile,
          ...resolve,
          ...(jsonFile ? ['-H', 'Content-Type: application/json', '--data-binary', `@${jsonFile}`] : []),
          '-w',
          '\n%{http_code}',
          url,
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const cut = out.lastIndexOf('\n');
      return [Number(out.slice(cut + 1)), out.slice(0, cut)];
    },
    kill: async () => {
      await managed.stop(0);
    },
  };
}
