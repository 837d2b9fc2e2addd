// The container image, built from the Containerfile by scripts/build-image.sh and started as a pod would start it:
// uid 65532, read-only root, no capabilities, what it writes on a mounted emptyDir. Skipped with a message without
// root, buildah or mmdebstrap, unless CI=true, where that is a failure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { runCerts } from '../../src/infrastructure/certs/store.js';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { forgetDir, removeIfAborted } from '../../testing/control-plane/processes.js';
import { ensureImage } from './build.js';
import { unpackImage, type Image } from './oci.js';
import { CI_CASES, writeCiManifests } from '../fixtures/ci-manifests.js';
import { missingTools, runContainer, startContainer, type Container, type Volume } from './run.js';

const root = packageRoot();
const missing = [
  ...missingTools(),
  ...['buildah', 'mmdebstrap'].filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0),
];
const ci = process.env['CI'] === 'true';
const skip =
  missing.length > 0 && !ci
    ? `needs ${missing.join(', ')} (Debian: apt-get install -y buildah mmdebstrap uidmap; run as root)`
    : false;
// Compressed size of every layer, as a node pulls them, mostly the Node binary (BENCHMARKS.md). The bound catches a
// second Node, a build toolchain or the sources' dependencies slipping into the runtime stage.
const MAX_LAYER_BYTES = 90 * 1024 * 1024;
const review = join(root, 'test', 'fixtures', 'review-remove-etcd-hook.json');

let image: Image;
let work: string;
before(
  async () => {
    if (skip) return;
    assert.deepEqual(missing, [], 'CI=true: the image must be built and started');
    const { archive, built } = ensureImage(root, process.env, (line) => process.stderr.write(`${line}\n`));
    process.stderr.write(`image: ${archive}${built ? ' (built now)' : ' (cached)'}\n`);
    work = mkdtempSync(join(tmpdir(), 'hookkeeper-image-'));
    removeIfAborted(work);
    image = unpackImage(archive, join(work, 'image'));
  },
  { timeout: 30 * 60_000 },
);

after(() => {
  if (!work) return;
  rmSync(work, { recursive: true, force: true });
  forgetDir(work);
});

/** A fresh writable directory, as the kubelet makes for an emptyDir (mode 0777). */
function emptyDir(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  return dir;
}

function status(pid: number): Record<string, string> {
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
  );
}

async function until<T>(what: string, c: Container, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void c.exited.then(() => {
    exited = true;
  });
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (exited) assert.fail(`container exited before ${what}:\n${c.output()}`);
    if (Date.now() > deadline) assert.fail(`no ${what} after ${timeoutMs} ms:\n${c.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Ready, then one AdmissionReview denied with its uid echoed, then SIGTERM drains and exits 0. */
async function exercise(c: Container, base: string, caFile: string): Promise<void> {
  await until('/readyz answering 200', c, () => {
    if (!existsSync(caFile)) return undefined;
    try {
      return c.request(`${base}/readyz`, { caFile })[0] === 200 ? true : undefined;
    } catch {
      return undefined;
    }
  });
  const [code, body] = c.request(`${base}/validate`, { caFile, jsonFile: review });
  assert.equal(code, 200, body);
  const sent = JSON.parse(readFileSync(review, 'utf8')) as { request: { uid: string } };
  const answer = JSON.parse(body) as {
    response: { uid: string; allowed: boolean; status?: { code: number; message: string } };
  };
  assert.equal(answer.response.uid, sent.request.uid);
  assert.equal(answer.response.allowed, false);
  assert.equal(answer.response.status?.code, 403);
  assert.match(answer.response.status?.message ?? '', /may not remove preDrain hook "EtcdQuorumOperator"/);

  const proc = status(c.pid);
  assert.equal(proc['Uid'], '65532\t65532\t65532\t65532');
  assert.equal(proc['Gid'], '65532\t65532\t65532\t65532');
  assert.equal(proc['Groups'], '');
  assert.equal(proc['CapEff'], '0000000000000000');
  assert.equal(proc['CapPrm'], '0000000000000000');
  assert.equal(proc['NoNewPrivs'], '1');

  process.kill(c.pid, 'SIGTERM');
  assert.equal(await c.exited, 0, c.output());
  assert.match(c.output(), /shutting down/);
}

test(
  'image config: user 65532, node (where distroless keeps it) running bin/hookkeeper.js, command serve, port 8443',
  { skip },
  () => {
    const { config } = image;
    assert.equal(config.User, '65532:65532');
    assert.deepEqual(config.Entrypoint, ['/nodejs/bin/node', '/app/bin/hookkeeper.js']);
    assert.equal(config.Cmd?.[0], 'serve');
    assert.deepEqual(Object.keys(config.ExposedPorts ?? {}), ['8443/tcp']);
    assert.ok(statSync(join(image.rootfs, 'nodejs/bin/node')).mode & 0o001, 'node is executable by anyone');
    assert.ok(config.Env?.includes('NODE_ENV=production'));
  },
);

test('the runtime holds production dependencies only, no keys, tests or shell, within the size bound', { skip }, () => {
  const app = join(image.rootfs, 'app');
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const devOnly = Object.entries(lock.packages)
    .filter(([path, p]) => path.startsWith('node_modules/') && p.dev)
    .map(([path]) => path);
  assert.ok(
    ['typescript', 'eslint', 'tsx', '@types/supertest'].every((n) => devOnly.includes(`node_modules/${n}`)),
    'the lockfile marks dev dependencies',
  );
  assert.deepEqual(
    devOnly.filter((path) => existsSync(join(app, path))),
    [],
    'dev-only packages in the image',
  );
  const production = Object.entries(lock.packages)
    .filter(([path, p]) => path.startsWith('node_modules/') && !p.dev)
    .map(([path]) => path);
  assert.deepEqual(
    production.filter((path) => !existsSync(join(app, path))),
    [],
    'production packages missing from the image',
  );

  assert.deepEqual(readdirSync(app).sort(), [
    'LICENSE',
    'bin',
    'dist',
    'node_modules',
    'package.json',
    'webhook-config',
  ]);
  const appFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? appFiles(join(dir, e.name)) : [relative(app, join(dir, e.name))],
    );
  const own = [...appFiles(join(app, 'dist')), ...appFiles(join(app, 'webhook-config')), ...appFiles(join(app, 'bin'))];
  assert.ok(own.includes('dist/transports/cli/main.js'));
  assert.deepEqual(
    own.filter((f) => /\.(key|ts)$|\.test\.|(^|\/)\.dev-certs\//.test(f) && !f.endsWith('.d.ts')),
    [],
  );
  for (const shell of ['bin/sh', 'bin/bash', 'usr/bin/sh', 'usr/bin/bash', 'bin/dash'])
    assert.ok(!existsSync(join(image.rootfs, shell)), `${shell} in the image`);
  assert.ok(
    image.layerBytes < MAX_LAYER_BYTES,
    `${(image.layerBytes / 2 ** 20).toFixed(1)} MiB of layers, bound ${MAX_LAYER_BYTES / 2 ** 20} MiB`,
  );
  process.stderr.write(`image layers: ${(image.layerBytes / 2 ** 20).toFixed(1)} MiB compressed\n`);
});

test(
  "the image's own entrypoint and command start read-only as 65532, writing only to the /tmp emptyDir; one review; SIGTERM exits 0",
  { skip, timeout: 180_000 },
  async () => {
    const argv = [...(image.config.Entrypoint ?? []), ...(image.config.Cmd ?? [])];
    const devCertDir = argv[argv.indexOf('--dev-cert-dir') + 1] ?? '';
    assert.match(devCertDir, /^\/tmp\//, 'the default command writes its development certificate under /tmp');
    const tmp = emptyDir('tmp-default');
    const c = await startContainer({
      rootfs: image.rootfs,
      config: image.config,
      argv,
      volumes: [{ hostPath: tmp, mountPath: '/tmp', readOnly: false }],
      logFile: join(work, 'default.log'),
    });
    try {
      assert.equal(
        readFileSync(`/proc/${c.pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' '),
        argv.join(' '),
      );
      // The harness's root really is read-only: root itself cannot write there inside the container's mounts.
      const probe = spawnSync(
        'nsenter',
        [`--mount=/proc/${c.pid}/ns/mnt`, '--', 'touch', join(image.rootfs, 'app', 'probe')],
        { encoding: 'utf8' },
      );
      assert.match(probe.stderr, /Read-only file system/);
      await exercise(c, 'https://127.0.0.1:8443', join(tmp, relative('/tmp', devCertDir), 'ca.crt'));
    } finally {
      await c.kill();
    }
  },
);

test(
  "the Deployment's args and volumes run on the image (policy ConfigMap and TLS Secret at its mount path)",
  { skip, timeout: 180_000 },
  async () => {
    type Item = { key: string; path: string };
    type Source = { configMap?: { name: string; items: Item[] }; secret?: { name: string; items: Item[] } };
    const deployment = parse(readFileSync(join(root, 'webhook-config', 'base', 'deployment.yaml'), 'utf8')) as {
      spec: {
        template: {
          spec: {
            securityContext: { runAsUser: number };
            containers: {
              args: string[];
              ports: { containerPort: number }[];
              volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
              securityContext: { readOnlyRootFilesystem: boolean };
            }[];
            volumes: { name: string; projected: { sources: Source[] } }[];
          };
        };
      };
    };
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    assert.ok(container);
    assert.equal(pod.securityContext.runAsUser, 65532, 'the image runs as the uid the Deployment asks for');
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    const configMap = parse(readFileSync(join(root, 'webhook-config', 'base', 'policy-configmap.yaml'), 'utf8')) as {
      metadata: { name: string };
      data: Record<string, string>;
    };
    const service = parse(readFileSync(join(root, 'webhook-config', 'base', 'service.yaml'), 'utf8')) as {
      metadata: { name: string; namespace: string };
    };
    // The Secret's pair as the self-managed overlay makes it: `hookkeeper certs` for the Service's DNS names.
    const pair = join(work, 'secret');
    await runCerts({ out: pair, service: service.metadata.name, namespace: service.metadata.namespace, ips: [] });
    const volumes: Volume[] = container.volumeMounts.map((m) => {
      const volume = pod.volumes.find((v) => v.name === m.name);
      assert.ok(volume?.projected, `volume ${m.name} is projected`);
      const dir = join(work, `volume-${m.name}`);
      for (const source of volume.projected.sources) {
        for (const item of source.configMap?.items ?? source.secret?.items ?? []) {
          const file = join(dir, item.path);
          mkdirSync(join(file, '..'), { recursive: true });
          if (source.configMap) {
            assert.equal(source.configMap.name, configMap.metadata.name);
            writeFileSync(file, configMap.data[item.key] ?? assert.fail(`ConfigMap has no ${item.key}`), {
              mode: 0o644,
            });
          } else {
            writeFileSync(file, readFileSync(join(pair, item.key)), { mode: 0o644 });
          }
        }
      }
      return { hostPath: dir, mountPath: m.mountPath, readOnly: m.readOnly === true };
    });
    const port = container.ports[0]?.containerPort ?? 0;
    // Kubernetes: args replace the image's command, the entrypoint stays.
    const argv = [...(image.config.Entrypoint ?? []), ...container.args];
    const c = await startContainer({
      rootfs: image.rootfs,
      config: image.config,
      argv,
      volumes,
      logFile: join(work, 'deployment.log'),
    });
    try {
      await exercise(
        c,
        `https://${service.metadata.name}.${service.metadata.namespace}.svc:${port}`,
        join(pair, 'ca.crt'),
      );
    } finally {
      await c.kill();
    }
  },
);

test(
  'CI without publishing: `podman run --rm -v "$PWD:/src:Z" IMAGE validate /src` judges a mounted directory',
  { skip, timeout: 180_000 },
  async () => {
    // The repository under review, mounted read-only where docs/ci.md mounts the checkout.
    const src = join(work, 'ci-src');
    writeCiManifests(src);
    for (const [i, c] of CI_CASES.entries()) {
      // As podman does: the arguments replace the image's command, the entrypoint stays.
      const { code, output } = await runContainer({
        rootfs: image.rootfs,
        config: image.config,
        argv: [...(image.config.Entrypoint ?? []), ...c.args('/src')],
        volumes: [{ hostPath: src, mountPath: '/src', readOnly: true }],
        logFile: join(work, `ci-${i}.log`),
      });
      assert.equal(code, c.code, `${c.name}:\n${output}`);
      assert.match(output, c.output, c.name);
    }
    // The version is package.json's, read at run time from /app/package.json.
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const { code, output } = await runContainer({
      rootfs: image.rootfs,
      config: image.config,
      argv: [...(image.config.Entrypoint ?? []), 'version'],
      volumes: [],
      logFile: join(work, 'ci-version.log'),
    });
    assert.equal(code, 0, output);
    assert.equal(output, `hookkeeper ${version}\n`);
  },
);
