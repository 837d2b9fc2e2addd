// docs/native-admission-policies.md lists every divergence of native mode from the webhook exactly as
// src/compilers/native/notes.ts declares it (`npm run render:admission-policies` writes the list): a divergence added, changed
// or dropped in the source fails here until the page is rendered again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { DIVERGENCE_DOC, everyDivergence, withDivergenceList } from '../../scripts/divergence-doc.js';

test('the divergence list of the native admission policies page is the one src/compilers/native/notes.ts declares', () => {
  const page = readFileSync(join(packageRoot(), DIVERGENCE_DOC), 'utf8');
  const found = everyDivergence();
  // Every rule a divergence can name shows up once the policy turns it on, so no divergence is missed for want of one.
  for (const rule of ['child-owner-reference', 'child-parent', 'child-finalizer', 'owner-only-removal', 'single-owner'])
    assert.ok(
      found.some((d) => d.rule === rule),
      rule,
    );
  assert.equal(page, withDivergenceList(page), `${DIVERGENCE_DOC} is stale: npm run render:admission-policies`);
  assert.throws(() => withDivergenceList('# no list here\n'), /markers are missing/);
});
