// docs/native-admission-policies.md lists every divergence of native mode from the webhook exactly as
// src/native/notes.ts declares it: a divergence added, changed or dropped in the source fails here until the page
// says the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicy } from '../../src/config/load.js';
import { divergences, type Divergence } from '../../src/native/notes.js';
import { packageRoot } from '../../src/deploy/render.js';
import { docSection } from '../helpers/docs.js';

/** A policy under which every divergence applies: child rules, strictOwners, a default hook on UPDATE with labels. */
function everyDivergence(): Divergence[] {
  const children = readFileSync(join(packageRoot(), 'test/fixtures/children-virtualmachine-policy.yaml'), 'utf8');
  const policy = parsePolicy(
    `${children}
strictOwners: true
unverifiedRemoval: warn
defaultHooks:
  - name: etcd-quorum-protection
    match:
      kinds: [{group: machine.openshift.io, kind: Machine}]
      labelSelector: {matchLabels: {machine.openshift.io/cluster-api-machine-role: master}}
    operations: [CREATE, UPDATE]
    stage: preDrain
    hook: {name: EtcdQuorumOperator, owner: clusteroperator/etcd}
`,
    'every-divergence.yaml',
  );
  return divergences(policy);
}

/** One list item per divergence: the rule, whether a verdict can differ, and render's sentence (`<` escaped). */
function listItem(d: Divergence): string {
  const verdict = d.verdictDiffers ? ' (can change the verdict)' : ' (words only)';
  return `- \`${d.rule}\`${verdict}: ${d.text.replace(/</g, '\\<')}`;
}

test('the divergence list of the native admission policies page is the one src/native/notes.ts declares', () => {
  const section = docSection('docs/native-admission-policies.md', '## What stays webhook-only, and every divergence');
  const block = /<!-- divergences: begin -->\n([\s\S]*?)\n<!-- divergences: end -->/.exec(section);
  assert.ok(block, 'the section has the divergence list between its markers');
  const found = everyDivergence();
  // Every rule a divergence can name shows up once the policy turns it on, so no divergence is missed for want of one.
  for (const rule of [
    'child-owner-reference',
    'child-parent',
    'child-finalizer',
    'owner-only-removal',
    'single-owner',
  ]) {
    assert.ok(
      found.some((d) => d.rule === rule),
      rule,
    );
  }
  assert.equal(block[1], found.map(listItem).join('\n'));
});
