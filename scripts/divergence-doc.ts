// The divergence list of docs/native-admission-policies.md, derived from src/compilers/native/notes.ts: written by
// `npm run render:admission-policies`, held to the source by test/native/divergence-doc.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicy } from '../src/infrastructure/config/load.js';
import { packageRoot } from '../src/compilers/deploy/render.js';
import { divergences, type Divergence } from '../src/compilers/native/notes.js';

export const DIVERGENCE_DOC = 'docs/native-admission-policies.md';
const BLOCK = /(<!-- divergences: begin -->\n)[\s\S]*?(\n<!-- divergences: end -->)/;

/** A policy under which every divergence applies: child rules, strictOwners, a default hook on UPDATE with labels. */
export function everyDivergence(): Divergence[] {
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
export function listItem(d: Divergence): string {
  const verdict = d.verdictDiffers ? ' (can change the verdict)' : ' (words only)';
  return `- \`${d.rule}\`${verdict}: ${d.text.replace(/</g, '\\<')}`;
}

/** The page with its list between the markers made anew; throws if the markers are gone. */
export function withDivergenceList(page: string): string {
  if (!BLOCK.test(page)) throw new Error(`${DIVERGENCE_DOC}: the divergence list's markers are missing`);
  const list = everyDivergence().map(listItem).join('\n');
  return page.replace(BLOCK, (_, begin: string, end: string) => `${begin}${list}${end}`);
}
