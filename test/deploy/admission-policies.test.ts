// The native admission policies webhook-config/ and the chart ship: one committed file (the chart's is a link to it),
// exactly what `hookkeeper admission-policy render` prints now for the embedded default policy (regenerate with
// `npm run render:admission-policies`), and a set the API server can install as it is (every binding names a policy of
// the file, params before policies before bindings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../src/compilers/deploy/render.js';
import { CHART_LINK, renderShipped, SHIPPED_FILE } from '../../scripts/render-admission-policies.js';

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { policyName?: string; paramKind?: { apiVersion: string; kind: string } };
}

const read = (file: string): string => readFileSync(join(packageRoot(), file), 'utf8');

function docs(text: string): Doc[] {
  const parsed = parseAllDocuments(text);
  for (const d of parsed)
    assert.deepEqual(
      d.errors.map((e) => e.message),
      [],
    );
  return parsed.map((d) => d.toJS() as Doc | null).filter((d): d is Doc => d !== null);
}

test('the shipped file is what render prints now (else: npm run render:admission-policies)', async () => {
  assert.ok(
    read(SHIPPED_FILE) === (await renderShipped()),
    `${SHIPPED_FILE} differs from what \`hookkeeper admission-policy render\` prints now: run npm run render:admission-policies`,
  );
});

test("the chart's copy is a link to the one shipped file, not a second copy", () => {
  const link = join(packageRoot(), CHART_LINK);
  assert.ok(
    lstatSync(link).isSymbolicLink(),
    `${CHART_LINK} must be a symbolic link to ${SHIPPED_FILE}: ln -sf ${relative(dirname(CHART_LINK), SHIPPED_FILE)} ${CHART_LINK}`,
  );
  assert.equal(readlinkSync(link), relative(dirname(CHART_LINK), SHIPPED_FILE));
});

test('the shipped render is an installable set: params, policies, bindings, each binding naming a policy of the set', () => {
  const objects = docs(read(SHIPPED_FILE));
  assert.ok(objects.length >= 2, `only ${objects.length} objects`);
  const rank = (d: Doc): number => (d.kind.endsWith('Binding') ? 2 : d.kind.endsWith('Policy') ? 1 : 0);
  assert.deepEqual(
    objects.map(rank),
    objects.map(rank).sort((a, b) => a - b),
    'apply order',
  );
  for (const d of objects) {
    assert.match(d.metadata.name, /^hookkeeper-/, `${d.kind} ${d.metadata.name}`);
    if (rank(d) > 0) assert.equal(d.apiVersion, 'admissionregistration.k8s.io/v1', `${d.kind} ${d.metadata.name}`);
  }
  const policies = new Set(objects.filter((d) => rank(d) === 1).map((d) => `${d.kind}/${d.metadata.name}`));
  assert.ok([...policies].some((p) => p.startsWith('ValidatingAdmissionPolicy/')));
  assert.ok([...policies].some((p) => p.startsWith('MutatingAdmissionPolicy/')));
  for (const b of objects.filter((d) => rank(d) === 2)) {
    const policy = `${b.kind.replace(/Binding$/, '')}/${b.spec?.policyName}`;
    assert.ok(policies.has(policy), `${b.kind} ${b.metadata.name} binds ${policy}, which the file does not hold`);
  }
});
