// webhook-config/base is generated from the chart (`npm run render:kustomize`): every file is what `helm template`
// renders now, and no file is left over. Needs a real helm; skips without one unless CI=true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { BASE_DIR, renderBase } from '../../scripts/render-kustomize.js';
import { findHelm, helmSkip, requireHelm } from '../helpers/helm.js';

const helm = findHelm();

test(
  'webhook-config/base is the chart as render:kustomize renders it now (else: npm run render:kustomize)',
  { skip: helmSkip(helm) },
  () => {
    const rendered = renderBase(requireHelm(helm));
    const dir = join(packageRoot(), BASE_DIR);
    const committed = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
    assert.deepEqual(
      committed.sort(),
      [...rendered.keys()].sort(),
      `the files of ${BASE_DIR} are not the chart's templates: run npm run render:kustomize`,
    );
    for (const [file, text] of rendered)
      assert.ok(
        readFileSync(join(dir, file), 'utf8') === text,
        `${BASE_DIR}/${file} differs from what the chart renders now: run npm run render:kustomize`,
      );
  },
);

test('every base file but the kustomization is one object, as src/compilers/deploy/render.ts and the tests read them', () => {
  const dir = join(packageRoot(), BASE_DIR);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')) {
    const separators = readFileSync(join(dir, file), 'utf8').match(/^---$/gm) ?? [];
    assert.equal(separators.length, 0, `${BASE_DIR}/${file} holds more than one document`);
  }
});
