// What the container image promises without building it: one Node line for both stages, a line CI tests; a build
// context without dependencies, certificates or tests; a Deployment image the documented command replaces.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { readDoc } from '../helpers/docs.js';
import { findKustomize, kustomizeBuild, NO_KUSTOMIZE } from '../helpers/kustomize.js';
import { copiedPaths } from '../image/build.js';

const root = packageRoot();
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const patterns = (file: string): string[] =>
  read(file)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

function argDefault(containerfile: string, name: string): string {
  const m = new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(containerfile);
  assert.ok(m?.[1], `Containerfile: ARG ${name}=... with a default`);
  return m[1];
}

test('both stages default to public images of one Node line, the line build-image.sh assembles and CI tests', () => {
  const containerfile = read('Containerfile');
  const runtime = /^gcr\.io\/distroless\/nodejs(\d+)-debian(\d+):nonroot$/.exec(
    argDefault(containerfile, 'RUNTIME_IMAGE'),
  );
  const build = /^docker\.io\/library\/node:(\d+)-(\w+)-slim$/.exec(argDefault(containerfile, 'BUILD_IMAGE'));
  assert.ok(runtime?.[1] && build?.[1], 'runtime distroless nodejsN-debianM:nonroot, build node:N-SUITE-slim');
  const line = Number(runtime[1]);
  assert.equal(Number(build[1]), line, 'one Node line for build and runtime');
  assert.equal(build[2], 'bookworm', 'the build image is on Debian 12, like distroless debian12');
  assert.equal(runtime[2], '12');
  assert.match(containerfile, /^FROM \$\{BUILD_IMAGE\} AS build$/m);
  assert.match(containerfile, /^FROM \$\{RUNTIME_IMAGE\}$/m);

  const script = read('scripts/build-image.sh');
  assert.equal(
    /HOOKKEEPER_IMAGE_NODE_MAJOR:-(\d+)/.exec(script)?.[1],
    String(line),
    'build-image.sh assembles the same line',
  );
  assert.equal(/HOOKKEEPER_IMAGE_SUITE:-(\w+)/.exec(script)?.[1], build[2]);
  const ciLines = /^node_lines=\(([\d ]+)\)$/m.exec(read('.ci/run'))?.[1]?.split(' ').map(Number) ?? [];
  assert.ok(
    ciLines.includes(line),
    `.ci/run tests Node ${ciLines.join(', ')}; the image's ${line} must be one of them`,
  );
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const minimum = Number(/^>=(\d+)\./.exec(engines)?.[1]);
  for (const l of ciLines) assert.ok(l >= minimum, `engines ${engines} admits Node ${l}`);
});

test('the build context leaves out dependencies, builds, certificates, keys and tests; docker and podman read the same list', () => {
  const ignored = patterns('.containerignore');
  assert.deepEqual(patterns('.dockerignore'), ignored);
  for (const p of [
    'node_modules',
    'dist',
    '.dev-certs',
    'webhook-config/overlays/self-managed/certs',
    'test',
    '.git',
  ]) {
    assert.ok(ignored.includes(p), `.containerignore leaves out ${p}`);
  }
  const copied = copiedPaths(read('Containerfile'));
  assert.ok(copied.includes('src') && copied.includes('package-lock.json'), copied.join(' '));
  assert.ok(copied.includes('LICENSE'), 'the image carries the license');
  for (const p of copied) {
    assert.ok(existsSync(join(root, p)), `COPY ${p} exists`);
    assert.ok(!ignored.includes(p), `COPY ${p} is not left out of the context`);
  }
});

/** Every `kustomize edit set image NAME=IMAGE` the README and the install page show, as [NAME, IMAGE]. */
function setImageCommands(): string[][] {
  return ['README.md', 'docs/install.md'].flatMap((page) =>
    [...readDoc(page).matchAll(/kustomize edit set image (\S+)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

test("the base Deployment names a placeholder image, the one the docs' `kustomize edit set image` replaces", () => {
  const deployment = parse(read('webhook-config/base/deployment.yaml')) as {
    spec: { template: { spec: { containers: { image: string }[] } } };
  };
  const image = deployment.spec.template.spec.containers[0]?.image ?? '';
  assert.match(image, /^[a-z0-9.-]+\.invalid\//, 'a registry that never resolves: nothing is pulled by accident');
  const commands = setImageCommands();
  assert.ok(commands.length >= 2, 'README.md and docs/install.md show `kustomize edit set image NAME=...`');
  for (const [name] of commands) assert.equal(name, image.replace(/:[^:/]+$/, ''));
});

type Built = { kind: string; spec?: { template?: { spec?: { containers?: { image: string }[] } } } };

// `kubectl kustomize` builds but cannot edit: this needs the standalone kustomize the install docs tell users to run.
const found = findKustomize();
const kustomize = found && found[0] !== 'kubectl' ? found : undefined;

test(
  '`kustomize edit set image` as the docs write it sets the image of every overlay',
  { skip: kustomize ? false : NO_KUSTOMIZE },
  () => {
    const cmd: string[] = kustomize ?? assert.fail(NO_KUSTOMIZE);
    const [name] = setImageCommands()[0] ?? [];
    assert.ok(name);
    const copy = mkdtempSync(join(tmpdir(), 'hookkeeper-image-name-'));
    try {
      cpSync(join(root, 'webhook-config'), join(copy, 'webhook-config'), { recursive: true });
      for (const overlay of ['openshift', 'cert-manager']) {
        const dir = join(copy, 'webhook-config', 'overlays', overlay);
        execFileSync(cmd[0] ?? '', ['edit', 'set', 'image', `${name}=registry.example.com/team/hookkeeper:1.2.3`], {
          cwd: dir,
        });
        const docs = kustomizeBuild<Built>(cmd, dir);
        const images = docs
          .filter((d) => d.kind === 'Deployment')
          .map((d) => d.spec?.template?.spec?.containers?.[0]?.image);
        assert.deepEqual(images, ['registry.example.com/team/hookkeeper:1.2.3'], overlay);
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  },
);
