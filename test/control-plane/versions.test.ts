// The Kubernetes releases CI builds and runs are named in testing/control-plane/versions.ts, and in three places that
// cannot import it: the build script's pin, .ci/run's build of the previous minor, and the README's version table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { MAIN_ETCD_VERSION, MAIN_K8S_VERSION, PREVIOUS_K8S_VERSION } from '../../testing/control-plane/versions.js';
import { readDoc } from '../helpers/docs.js';

const read = (path: string): string => readFileSync(join(packageRoot(), path), 'utf8');

test('scripts/build-control-plane.sh builds the main line by default, with its etcd', () => {
  const script = read('scripts/build-control-plane.sh');
  assert.match(script, new RegExp(`^readonly K8S_VERSION_PINNED=${MAIN_K8S_VERSION}$`, 'm'));
  assert.match(script, new RegExp(`^readonly ETCD_VERSION_PINNED=${MAIN_ETCD_VERSION}$`, 'm'));
});

test('.ci/run builds the main line and the previous minor, and no other release', () => {
  const builds = [
    ...read('.ci/run').matchAll(/^\s*(?:time )?(HOOKKEEPER_K8S_VERSION=(\S+) )?scripts\/build-control-plane\.sh/gm),
  ];
  assert.deepEqual(
    builds.map((m) => m[2] ?? MAIN_K8S_VERSION),
    [MAIN_K8S_VERSION, PREVIOUS_K8S_VERSION],
  );
});

test("the README's version table names the releases CI runs, and only those", () => {
  const lines = readDoc('README.md').split('\n');
  const start = lines.findIndex((l) => l.startsWith('| way in | Kubernetes'));
  assert.ok(start >= 0, 'README.md has no version table (| way in | Kubernetes ... |)');
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  const table = lines.slice(start, end).join('\n');
  const named = new Set(table.match(/v1\.\d+\.\d+/g) ?? []);
  assert.deepEqual([...named].sort(), [PREVIOUS_K8S_VERSION, MAIN_K8S_VERSION].sort());
});
